// Stream compaction: an exclusive scan of the keep flags gives each kept element its own
// slot, and the group's count comes from a reduction: no two work-items write one slot.
// kernel: compact
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values"), and OpenCL C 1.2 has no work-group functions
// global: 128   local: 64
// arg: buffer int 128 fill=random(5,0,9) name=in
// arg: buffer int 128 fill=zero name=out
// arg: buffer int 2 fill=zero name=count
// expect: none
__kernel void compact(__global const int *in, __global int *out, __global int *count) {
  int x = in[get_global_id(0)];
  int keep = x > 4;
  int at = work_group_scan_exclusive_add(keep);
  int n = work_group_reduce_add(keep);
  size_t base = get_group_id(0) * get_local_size(0);
  if (keep)
    out[base + at] = x;
  if (get_local_id(0) == get_local_size(0) - 1)
    count[get_group_id(0)] = n;
}
