// Twin of seq-cst-message-passing.cl: atomic_store and atomic_load without _explicit are
// seq_cst at memory_scope_device (a release and an acquire that include both groups), so the
// store synchronises with the load that reads it and the hand-off of data is race-free.
// kernel: mp_seq_cst
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no C11 atomics (atomic_store_explicit undefined)
// global: 128   local: 64
// arg: buffer int 1 fill=zero name=data
// arg: buffer int 1 fill=zero name=flag
// arg: buffer int 1 fill=zero name=out
// expect: none
__kernel void mp_seq_cst(__global int *data, __global atomic_int *flag, __global int *out) {
  if (get_local_id(0) != 0)
    return;
  if (get_group_id(0) == 0) {
    data[0] = 42;
    atomic_store(flag, 1);
  } else {
    while (atomic_load(flag) != 1)
      ;
    out[0] = data[0];
  }
}
