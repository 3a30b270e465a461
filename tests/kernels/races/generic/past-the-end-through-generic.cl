// A helper writes one past the element its generic pointer names: the last work-item writes
// past the end of the buffer, reported as out of bounds through the generic pointer.
// kernel: k
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no generic address space functions
// global: 64   local: 32
// arg: buffer int 64 fill=zero name=out
// expect: out-of-bounds memory=global buffer=out
void put_next(int *p, int v) { p[1] = v; }
__kernel void k(__global int *out) {
  put_next(&out[get_global_id(0)], 1);
}
