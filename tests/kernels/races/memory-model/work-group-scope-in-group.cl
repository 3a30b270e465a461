// Release/acquire at memory_scope_work_group on global memory between two work-items of one
// work-group (items 0 and 1 of each group, each group with its own slots): the scope
// includes both, so the release store synchronises with the acquire load that reads it and
// the hand-off of data is race-free.
// kernel: mp_in_group
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no C11 atomics (atomic_store_explicit undefined)
// global: 128   local: 64
// arg: buffer int 2 fill=zero name=data
// arg: buffer int 2 fill=zero name=flag
// arg: buffer int 2 fill=zero name=out
// expect: none
__kernel void mp_in_group(__global int *data, __global atomic_int *flag, __global int *out) {
  int l = get_local_id(0), g = get_group_id(0);
  if (l == 0) {
    data[g] = 42 + g;
    atomic_store_explicit(&flag[g], 1, memory_order_release, memory_scope_work_group);
  } else if (l == 1) {
    while (atomic_load_explicit(&flag[g], memory_order_acquire, memory_scope_work_group) != 1)
      ;
    out[g] = data[g];
  }
}
