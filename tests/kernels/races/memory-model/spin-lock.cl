// A spin lock taken and released with relaxed atomics by work-item 0 of each of 4 groups:
// the lock keeps the critical sections apart in time, but relaxed atomics order nothing, so
// the plain increments of total race (each reads and writes what another group wrote).
// kernel: locked_add
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no C11 atomics (atomic_store_explicit undefined)
// global: 256   local: 64
// arg: buffer int 1 fill=zero name=lock
// arg: buffer int 1 fill=zero name=total
// expect: data-race race=read-write memory=global scope=inter-group buffer=total sync=relaxed-write
// expect: data-race race=write-write memory=global scope=inter-group buffer=total sync=relaxed-write
__kernel void locked_add(__global atomic_int *lock, __global int *total) {
  if (get_local_id(0) != 0)
    return;
  while (atomic_exchange_explicit(lock, 1, memory_order_relaxed, memory_scope_device) != 0)
    ;
  *total += 1;
  atomic_store_explicit(lock, 0, memory_order_relaxed, memory_scope_device);
}
