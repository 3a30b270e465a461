// A valid OpenCL C 3.0 program (program-scope global variables) whose program-scope pointer
// is initialised with the address of another program-scope variable: it builds, runs and is
// clean.
// kernel: read_table
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values"), and ShadowCL builds program-scope globals only as OpenCL C 3.0's feature
// global: 2   local: 2
// arg: buffer int 2 fill=zero name=out
// expect: none
global int table[] = {7, 42};
global int *second = &table[1];
__kernel void read_table(__global int *out) {
  if (get_global_id(0) == 0) {
    out[0] = table[0];
    out[1] = *second;
  }
}
