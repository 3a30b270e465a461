// Twin of global-2d-column-ww.cl: only the groups with group id y == 0 write.
// kernel: colsum
// global: 8,8   local: 8,2
// arg: buffer float 64 fill=iota name=m
// arg: buffer float 8 fill=zero name=sums
// expect: none
__kernel void colsum(__global const float *m, __global float *sums) {
  int x = get_global_id(0), y = get_global_id(1);
  if (get_local_id(1) == 0 && get_group_id(1) == 0)
    sums[x] = m[y * 8 + x] + m[(y + 1) * 8 + x];
}
