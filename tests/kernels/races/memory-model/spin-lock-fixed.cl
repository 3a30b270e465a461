// Twin of spin-lock.cl: the lock is taken with an acquire exchange and released with a
// release store at device scope; each taker's exchange reads the previous holder's release,
// so the critical sections are ordered by happens-before (transitively over all 4 groups),
// the increments are race-free and total ends as the number of groups.
// kernel: locked_add
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no C11 atomics (atomic_store_explicit undefined)
// global: 256   local: 64
// arg: buffer int 1 fill=zero name=lock
// arg: buffer int 1 fill=zero name=total
// expect: none
__kernel void locked_add(__global atomic_int *lock, __global int *total) {
  if (get_local_id(0) != 0)
    return;
  while (atomic_exchange_explicit(lock, 1, memory_order_acquire, memory_scope_device) != 0)
    ;
  *total += 1;
  atomic_store_explicit(lock, 0, memory_order_release, memory_scope_device);
}
