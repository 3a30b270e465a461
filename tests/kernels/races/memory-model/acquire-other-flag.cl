// Group 1 waits for group 0's release of flags[0] with relaxed loads, then does its acquire
// load on flags[1], which no release ever writes: an acquire synchronises only with the
// release whose value (or release sequence) it reads, so this one reads the initial value,
// orders nothing, and the read of data races with group 0's write under every schedule.
// kernel: acquire_flag
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no C11 atomics (atomic_store_explicit undefined)
// global: 128   local: 64
// arg: buffer int 1 fill=zero name=data
// arg: buffer int 2 fill=zero name=flags
// arg: buffer int 1 fill=zero name=out
// expect: data-race race=read-write memory=global scope=inter-group buffer=data sync=relaxed-read
__kernel void acquire_flag(__global int *data, __global atomic_int *flags, __global int *out) {
  if (get_local_id(0) != 0)
    return;
  if (get_group_id(0) == 0) {
    data[0] = 42;
    atomic_store_explicit(&flags[0], 1, memory_order_release, memory_scope_device);
  } else {
    while (atomic_load_explicit(&flags[0], memory_order_relaxed, memory_scope_device) != 1)
      ;
    atomic_load_explicit(&flags[1], memory_order_acquire, memory_scope_device);
    out[0] = data[0];
  }
}
