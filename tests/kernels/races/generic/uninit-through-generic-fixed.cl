// Twin of uninit-through-generic.cl: each work-item writes its local word through a generic
// pointer before reading it back through another.
// kernel: k
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no generic address space functions
// global: 64   local: 32
// arg: buffer int 64 fill=zero name=out
// expect: none
int get(int *p) { return *p; }
void put(int *p, int v) { *p = v; }
__kernel void k(__global int *out) {
  __local int tile[32];
  int l = get_local_id(0);
  put(&tile[l], l);
  out[get_global_id(0)] = get(&tile[l]);
}
