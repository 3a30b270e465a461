// A sum per work-group with work_group_reduce_add, and its maximum with
// work_group_reduce_max: every work-item reaches both, and only work-item 0 writes the
// group's results.
// kernel: wg_sum
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values"), and OpenCL C 1.2 has no work-group functions
// global: 256   local: 64
// arg: buffer int 256 fill=random(3,-100,100) name=in
// arg: buffer int 8 fill=zero name=out
// expect: none
__kernel void wg_sum(__global const int *in, __global int *out) {
  int x = in[get_global_id(0)];
  int s = work_group_reduce_add(x);
  int m = work_group_reduce_max(x);
  if (get_local_id(0) == 0) {
    out[2 * get_group_id(0)] = s;
    out[2 * get_group_id(0) + 1] = m;
  }
}
