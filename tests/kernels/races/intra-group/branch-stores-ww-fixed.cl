// Twin of branch-stores-ww: the two stores go to different elements.
// kernel: foo
// global: 64   local: 64
// arg: local int 64
// expect: none
__kernel void foo(__local int *p) {
  size_t l = get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 5) {
    p[5] = l;
  }
  if (l == 4) {
    p[4] = l;
  }
}
