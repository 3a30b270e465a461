// Race-free twin of read-after-same-value-write.cl: one item writes, the others only read
// after the barrier.
// kernel: keep
// global: 128   local: 64
// arg: local int 1
// arg: buffer int 128 fill=zero name=out
// checks: races,benign
// expect: none
__kernel void keep(__local int *a, __global int *out) {
  if (get_local_id(0) == 0)
    a[0] = 3;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = a[0];
}
