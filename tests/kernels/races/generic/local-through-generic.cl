// A helper takes an unqualified (generic) pointer; every work-item passes it the same local
// word: a write-write race on local memory, found through the generic pointer.
// kernel: k
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no generic address space functions
// global: 64   local: 32
// arg: buffer int 64 fill=zero name=out
// expect: data-race race=write-write memory=local scope=intra-group buffer=tile
void put(int *p, int v) { *p = v; }
__kernel void k(__global int *out) {
  __local int tile[32];
  int l = get_local_id(0);
  put(&tile[0], l);
  barrier(CLK_LOCAL_MEM_FENCE);
  put(&out[get_global_id(0)], tile[0]);
}
