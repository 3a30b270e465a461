// Twin of if-local-id.cl: the branch depends only on the group id, so every work-item of
// a group takes the same side.
// kernel: halves
// global: 64   local: 32
// arg: buffer int 64 fill=zero name=out
// expect: none
__kernel void halves(__global int *out) {
  int l = get_local_id(0);
  if (get_group_id(0) == 0) {
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[get_global_id(0)] = l;
}
