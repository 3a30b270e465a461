// Every group adds its id to a program-scope variable (OpenCL C 3.0's program-scope global
// variables): write-write race
// between groups on memory no kernel argument names.
// kernel: tally
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values"), and ShadowCL builds program-scope globals only as OpenCL C 3.0's feature
// global: 64   local: 16
// arg: buffer int 64 fill=zero name=out
// expect: data-race race=write-write memory=global scope=inter-group
global int total = 0;
__kernel void tally(__global int *out) {
  if (get_local_id(0) == 0) total += (int)get_group_id(0);
  out[get_global_id(0)] = 1;
}
