// GPUVerify's null_pointers/null_pointer_assignment: with i == 0 every work-item reads and
// writes through a null private pointer (one finding each). A build that lets `opt` take the null access for
// unreachable folds the branch into y = &x, so nothing was reported.
// kernel: k
// global: 64   local: 64
// arg: buffer int 64 fill=zero name=out
// arg: scalar int 0
// twin: null-private-pointer-fixed.cl
// expect: out-of-bounds count=64
// expect: out-of-bounds count=64
// oclgrind: fatal Oclgrind stops with a fatal error at the null private pointer's access
__kernel void k(__global int *out, int i) {
  int x = 0;
  int *y;
  if (i) y = &x; else y = 0;
  y[0] = y[0] + 1;
  out[get_global_id(0)] = x;
}
