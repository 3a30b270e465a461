// A 2-D NDRange with a global offset: get_global_id includes the offset,
// get_global_offset reports it, get_group_id does not.
// kernel: ids
// global: 8,4   local: 4,2   offset: 3,5
// arg: buffer int 256 fill=zero name=out
// compare: exact out
__kernel void ids(__global int *out) {
  int x = get_global_id(0) - get_global_offset(0);
  int y = get_global_id(1) - get_global_offset(1);
  __global int *p = out + 8 * (y * 8 + x);
  p[0] = get_global_id(0);
  p[1] = get_global_id(1);
  p[2] = get_local_id(0) + 10 * get_local_id(1);
  p[3] = get_group_id(0) + 10 * get_group_id(1);
  p[4] = get_global_offset(0) + 10 * get_global_offset(1);
  p[5] = get_num_groups(0) + 10 * get_num_groups(1);
  p[6] = get_work_dim();
  p[7] = get_global_size(0) * get_local_size(1);
}
