// Twin of stencil-inplace-global.cl: read both neighbours, barrier, then write.
// kernel: jacobi
// global: 32   local: 32
// arg: buffer float 34 fill=iota name=u
// expect: none
__kernel void jacobi(__global float *u) {
  int i = get_global_id(0) + 1;
  float v = 0.25f * (u[i - 1] + u[i + 1]);
  barrier(CLK_GLOBAL_MEM_FENCE);
  u[i] = v;
}
