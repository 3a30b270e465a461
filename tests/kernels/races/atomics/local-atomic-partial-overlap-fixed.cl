// Race-free twin of local-atomic-partial-overlap.cl: a barrier orders the atomic before the
// reads.
// The atomic is misaligned on purpose (undefined behaviour, which the bounds check reports as
// misaligned-access): this case checks what the race check makes of the overlap.
// checks: races,divergence,uninit
// kernel: overlap
// global: 128   local: 64
// arg: local int 64
// arg: buffer int 128 fill=zero name=out
// expect: none
__kernel void overlap(__local int *a, __global int *out) {
  size_t i = get_local_id(0);
  a[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i == 0)
    atomic_inc((__local int *)((__local char *)a + 1));
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = a[i];
}
