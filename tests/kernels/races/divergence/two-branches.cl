// Both branches contain a barrier, but they are different barriers (different fences,
// different code after them, so the compiler cannot merge them): odd and even
// work-items wait at different program points.
// kernel: split
// global: 16   local: 16
// arg: buffer int 16 fill=zero name=out
// expect: barrier-divergence
__kernel void split(__global int *out) {
  int l = get_local_id(0);
  if (l % 2) {
    out[l] = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[l] += 10;
  } else {
    out[l] = 2;
    barrier(CLK_GLOBAL_MEM_FENCE);
    out[l] += 20;
  }
}
