// Message passing inside one work-group on local memory with relaxed atomics: work-item 1
// waits until it sees work-item 0's flag, but relaxed atomics order nothing, so its read of
// the local data races with item 0's write.
// kernel: local_mp
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no C11 atomics (atomic_store_explicit undefined)
// global: 128   local: 64
// arg: buffer int 2 fill=zero name=out
// expect: data-race race=read-write memory=local scope=intra-group buffer=data sync=relaxed-write
__kernel void local_mp(__global int *out) {
  __local int data;
  __local atomic_int flag;
  int l = get_local_id(0);
  if (l == 0)
    atomic_store_explicit(&flag, 0, memory_order_relaxed, memory_scope_work_group);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) {
    data = 42;
    atomic_store_explicit(&flag, 1, memory_order_relaxed, memory_scope_work_group);
  } else if (l == 1) {
    while (atomic_load_explicit(&flag, memory_order_relaxed, memory_scope_work_group) != 1)
      ;
    out[get_group_id(0)] = data;
  }
}
