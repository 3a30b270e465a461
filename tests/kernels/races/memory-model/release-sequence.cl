// Group 0 writes data and release-stores flag = 1; group 1 waits for 1 and stores 2 with a
// relaxed atomic store; group 2 waits for 2 and reads data after an acquire load of 2. A store
// by another work-item ends group 0's release sequence, so the acquire reads a value outside
// it, nothing synchronises, and group 2's read of data races with group 0's write.
// kernel: release_sequence
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no C11 atomics (atomic_store_explicit undefined)
// global: 192   local: 64
// arg: buffer int 1 fill=zero name=data
// arg: buffer int 1 fill=zero name=flag
// arg: buffer int 1 fill=zero name=out
// expect: data-race race=read-write memory=global scope=inter-group buffer=data sync=relaxed-write
__kernel void release_sequence(__global int *data, __global atomic_int *flag,
                               __global int *out) {
  if (get_local_id(0) != 0)
    return;
  int g = get_group_id(0);
  if (g == 0) {
    data[0] = 1;
    atomic_store_explicit(flag, 1, memory_order_release, memory_scope_device);
  } else if (g == 1) {
    while (atomic_load_explicit(flag, memory_order_relaxed, memory_scope_device) != 1)
      ;
    atomic_store_explicit(flag, 2, memory_order_relaxed, memory_scope_device);
  } else {
    // Only the acquire load that reads 2 may synchronise: the wait itself is relaxed, so
    // reading group 0's 1 directly never orders anything.
    while (atomic_load_explicit(flag, memory_order_relaxed, memory_scope_device) != 2)
      ;
    if (atomic_load_explicit(flag, memory_order_acquire, memory_scope_device) == 2)
      out[0] = data[0];
  }
}
