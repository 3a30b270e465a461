// Twin of loop-divergent-trips.cl: the trip count depends on the group id only.
// kernel: trips
// global: 32   local: 16
// arg: buffer int 32 fill=zero name=out
// expect: none
__kernel void trips(__global int *out) {
  int l = get_local_id(0);
  int acc = 0;
  for (int k = 0; k < 1 + get_group_id(0); k++) {
    acc += k;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[get_global_id(0)] = acc + l;
}
