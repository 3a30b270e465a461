// Twin of release-sequence.cl: group 1 moves flag from 1 to 2 with a relaxed
// read-modify-write (atomic_fetch_add). RMWs continue the release sequence headed by group 0's
// release store, so group 2's acquire load of 2 synchronises with group 0 and the read of
// data is race-free, although group 1 itself orders nothing.
// kernel: release_sequence
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no C11 atomics (atomic_store_explicit undefined)
// global: 192   local: 64
// arg: buffer int 1 fill=zero name=data
// arg: buffer int 1 fill=zero name=flag
// arg: buffer int 1 fill=zero name=out
// expect: none
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
    atomic_fetch_add_explicit(flag, 1, memory_order_relaxed, memory_scope_device);
  } else {
    // Only the acquire load that reads 2 may synchronise: the wait itself is relaxed, so
    // reading group 0's 1 directly never orders anything.
    while (atomic_load_explicit(flag, memory_order_relaxed, memory_scope_device) != 2)
      ;
    if (atomic_load_explicit(flag, memory_order_acquire, memory_scope_device) == 2)
      out[0] = data[0];
  }
}
