// A barrier in a loop whose trip count depends on the local id: work-items reach the
// barrier different numbers of times.
// kernel: trips
// global: 16   local: 16
// arg: buffer int 16 fill=zero name=out
// twin: loop-uniform-trips.cl
// expect: barrier-divergence
__kernel void trips(__global int *out) {
  int l = get_local_id(0);
  int acc = 0;
  for (int k = 0; k < 1 + l % 4; k++) {
    acc += k;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[l] = acc;
}
