// GPUVerify's sourcelocation_tests/races/fail/write_write: work-items 5 and 4 store to p[5]
// in two different branches. The race is reported with both stores' lines: an optimiser
// that merges the two like stores into one after the branches gives the merged store no
// line, so the build keeps them apart.
// kernel: foo
// global: 64   local: 64
// arg: local int 64
// twin: branch-stores-ww-fixed.cl
// expect: data-race race=write-write memory=local scope=intra-group lines=14/17
__kernel void foo(__local int *p) {
  size_t l = get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 5) {
    p[5] = l;
  }
  if (l == 4) {
    p[5] = l;
  }
}
