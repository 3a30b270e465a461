// Issue #11 item 4: an atomic on bytes 1..4 of local memory overlaps item 1's plain read of
// a[1] (bytes 4..7) in one byte only; that byte races.
// The atomic is misaligned on purpose (undefined behaviour, which the bounds check reports as
// misaligned-access): this case checks what the race check makes of the overlap.
// checks: races,divergence,uninit
// kernel: overlap
// global: 128   local: 64
// arg: local int 64
// arg: buffer int 128 fill=zero name=out
// expect: data-race race=atomic-plain memory=local scope=intra-group buffer=a
__kernel void overlap(__local int *a, __global int *out) {
  size_t i = get_local_id(0);
  a[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i == 0)
    atomic_inc((__local int *)((__local char *)a + 1));
  out[get_global_id(0)] = a[i];
}
