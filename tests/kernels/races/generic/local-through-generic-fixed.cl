// Twin of local-through-generic.cl: each work-item writes its own local word through the
// generic pointer, and to_local/to_global pick the memory a pointer points into.
// kernel: k
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no generic address space functions
// global: 64   local: 32
// arg: buffer int 64 fill=zero name=out
// expect: none
void put(int *p, int v) {
  if (to_local(p)) *to_local(p) = v;
  else if (to_global(p)) *to_global(p) = v + 1;
}
__kernel void k(__global int *out) {
  __local int tile[32];
  int l = get_local_id(0);
  put(&tile[l], l);
  barrier(CLK_LOCAL_MEM_FENCE);
  put(&out[get_global_id(0)], tile[31 - l]);
}
