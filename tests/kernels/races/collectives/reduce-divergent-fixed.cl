// Twin of reduce-divergent.cl: every work-item reaches the reduction, those of the upper
// half adding nothing.
// kernel: half_sum
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values"), and OpenCL C 1.2 has no work-group functions
// global: 64   local: 64
// arg: buffer int 64 fill=iota name=in
// arg: buffer int 64 fill=zero name=out
// expect: none
__kernel void half_sum(__global const int *in, __global int *out) {
  size_t i = get_global_id(0);
  int s = work_group_reduce_add(get_local_id(0) < 32 ? in[i] : 0);
  if (get_local_id(0) < 32)
    out[i] = s;
}
