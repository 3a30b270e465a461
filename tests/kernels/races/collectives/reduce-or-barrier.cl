// The lower half of the group waits at work_group_reduce_add, the upper half at a barrier:
// the work-items wait at different barriers (a work-group function is one, OpenCL C
// 6.15.13), which is barrier divergence.
// kernel: half_sum
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values"), and OpenCL C 1.2 has no work-group functions
// global: 64   local: 64
// arg: buffer int 64 fill=iota name=in
// arg: buffer int 64 fill=zero name=out
// twin: reduce-divergent-fixed.cl
// expect: barrier-divergence
__kernel void half_sum(__global const int *in, __global int *out) {
  size_t i = get_global_id(0);
  if (get_local_id(0) < 32) {
    out[i] = work_group_reduce_add(in[i]);
  } else {
    barrier(CLK_GLOBAL_MEM_FENCE);
    out[i] = -1;
  }
}
