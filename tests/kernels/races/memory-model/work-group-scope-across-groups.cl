// Release/acquire at memory_scope_work_group between two work-groups: a work-group scope
// includes only the work-items of the own group, so group 0's release store does not
// synchronise with group 1's acquire load although the load reads the value stored, and
// the read of data races with the write. (The flag's own accesses are atomic but of scopes
// that do not include each other, which the memory model also calls a data race; the case
// pins only the race on data.)
// kernel: mp
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no C11 atomics (atomic_store_explicit undefined)
// global: 128   local: 64
// arg: buffer int 1 fill=zero name=data
// arg: buffer int 1 fill=zero name=flag
// arg: buffer int 1 fill=zero name=out
// expect: data-race race=read-write memory=global scope=inter-group buffer=data sync=release-scope
__kernel void mp(__global int *data, __global atomic_int *flag, __global int *out) {
  if (get_local_id(0) != 0)
    return;
  if (get_group_id(0) == 0) {
    data[0] = 42;
    atomic_store_explicit(flag, 1, memory_order_release, memory_scope_work_group);
  } else {
    while (atomic_load_explicit(flag, memory_order_acquire, memory_scope_work_group) != 1)
      ;
    out[0] = data[0];
  }
}
