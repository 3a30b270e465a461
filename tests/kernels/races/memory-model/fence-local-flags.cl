// The release and acquire fences name only local memory (CLK_LOCAL_MEM_FENCE) while the
// data handed over is global: a fence orders only the memory its flags name, so the global
// write of data is not ordered before the read, which races with it.
// kernel: fenced_mp
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no C11 atomics (atomic_store_explicit undefined)
// global: 128   local: 64
// arg: buffer int 1 fill=zero name=data
// arg: buffer int 1 fill=zero name=flag
// arg: buffer int 1 fill=zero name=out
// expect: data-race race=read-write memory=global scope=inter-group buffer=data sync=fence-memory
// twin: fence-message-passing-fixed.cl
__kernel void fenced_mp(__global int *data, __global atomic_int *flag, __global int *out) {
  if (get_local_id(0) != 0)
    return;
  if (get_group_id(0) == 0) {
    data[0] = 42;
    atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_release, memory_scope_device);
    atomic_store_explicit(flag, 1, memory_order_relaxed, memory_scope_device);
  } else {
    while (atomic_load_explicit(flag, memory_order_relaxed, memory_scope_device) != 1)
      ;
    atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_acquire, memory_scope_device);
    out[0] = data[0];
  }
}
