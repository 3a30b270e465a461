// Twin of past-the-end-through-generic.cl: the helper writes the element it is given.
// kernel: k
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no generic address space functions
// global: 64   local: 32
// arg: buffer int 64 fill=zero name=out
// expect: none
void put(int *p, int v) { p[0] = v; }
__kernel void k(__global int *out) {
  put(&out[get_global_id(0)], 1);
}
