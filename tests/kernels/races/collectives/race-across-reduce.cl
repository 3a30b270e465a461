// Work-item 0 writes local memory, work-item 1 reads it after a work_group_reduce_add that
// both reach. Every work-item has arrived at the reduction before any leaves it, but a
// work-group function orders no memory (OpenCL C 6.15.13 gives it no memory order, unlike
// work_group_barrier): the write and the read race.
// kernel: across
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values"), and OpenCL C 1.2 has no work-group functions
// global: 64   local: 64
// arg: buffer int 64 fill=zero name=out
// arg: local int 1
// expect: data-race race=read-write memory=local scope=intra-group buffer=tmp lines=15/18
__kernel void across(__global int *out, __local int *tmp) {
  int l = get_local_id(0);
  if (l == 0)
    tmp[0] = 42;
  int s = work_group_reduce_add(l);
  if (l == 1)
    out[0] = tmp[0] + s;
}
