// 2-D launch: every row of work-groups writes the same column sums row: groups along y
// write the same elements.
// kernel: colsum
// global: 8,8   local: 8,2
// arg: buffer float 64 fill=iota name=m
// arg: buffer float 8 fill=zero name=sums
// expect: data-race race=write-write memory=global scope=inter-group buffer=sums
__kernel void colsum(__global const float *m, __global float *sums) {
  int x = get_global_id(0), y = get_global_id(1);
  if (get_local_id(1) == 0)
    sums[x] = m[y * 8 + x] + m[(y + 1) * 8 + x];
}
