// Twin of program-scope-ww.cl: the groups add atomically, and every item reads an
// initialised program-scope table (no uninitialised read).
// kernel: tally
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values"), and ShadowCL builds program-scope globals only as OpenCL C 3.0's feature
// global: 64   local: 16
// arg: buffer int 64 fill=zero name=out
// expect: none
global int total = 0;
global int weights[4] = {1, 2, 3, 4};
__kernel void tally(__global int *out) {
  if (get_local_id(0) == 0) atomic_add(&total, (int)get_group_id(0));
  out[get_global_id(0)] = weights[get_global_id(0) % 4];
}
