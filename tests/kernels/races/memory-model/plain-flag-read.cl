// Group 0 release-stores a flag atomically while group 1 reads it with a plain load (through
// an int pointer): an atomic and a plain access to the same location, unordered, are an
// atomic-plain race whichever runs first.
// kernel: peek_flag
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no C11 atomics (atomic_store_explicit undefined)
// global: 128   local: 64
// arg: buffer int 1 fill=zero name=flag
// arg: buffer int 1 fill=zero name=out
// expect: data-race race=atomic-plain memory=global scope=inter-group buffer=flag sync=none
__kernel void peek_flag(__global atomic_int *flag, __global int *out) {
  if (get_local_id(0) != 0)
    return;
  if (get_group_id(0) == 0)
    atomic_store_explicit(flag, 1, memory_order_release, memory_scope_device);
  else
    out[0] = *(__global volatile int *)flag;
}
