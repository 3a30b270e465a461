// Twin of race-across-reduce.cl: a local memory barrier after the reduction orders work-item
// 0's write before work-item 1's read.
// kernel: across
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values"), and OpenCL C 1.2 has no work-group functions
// global: 64   local: 64
// arg: buffer int 64 fill=zero name=out
// arg: local int 1
// expect: none
__kernel void across(__global int *out, __local int *tmp) {
  int l = get_local_id(0);
  if (l == 0)
    tmp[0] = 42;
  int s = work_group_reduce_add(l);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 1)
    out[0] = tmp[0] + s;
}
