// work_group_reduce_add inside a branch on the local id: half the group never reaches it.
// A work-group function must be reached by every work-item of the group, as a barrier
// must (OpenCL C 6.15.13).
// kernel: half_sum
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values"), and OpenCL C 1.2 has no work-group functions
// global: 64   local: 64
// arg: buffer int 64 fill=iota name=in
// arg: buffer int 64 fill=zero name=out
// expect: barrier-divergence lines=14/?
__kernel void half_sum(__global const int *in, __global int *out) {
  size_t i = get_global_id(0);
  if (get_local_id(0) < 32)
    out[i] = work_group_reduce_add(in[i]);
}
