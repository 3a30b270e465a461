// Message passing whose release and acquire take their scope at run time (a helper's
// memory_scope parameter, chosen by a kernel argument): here memory_scope_work_group, which
// does not include the other work-group, so the read of data races with the write.
// twin: run-time-scope-fixed.cl
// kernel: mp
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no C11 atomics (atomic_store_explicit undefined)
// global: 128   local: 64
// arg: buffer int 1 fill=zero name=data
// arg: buffer int 1 fill=zero name=flag
// arg: buffer int 1 fill=zero name=out
// arg: scalar int 0
// expect: data-race race=read-write memory=global scope=inter-group buffer=data sync=release-scope
void publish(volatile __global atomic_int *flag, memory_scope s) {
  atomic_store_explicit(flag, 1, memory_order_release, s);
}

int observe(volatile __global atomic_int *flag, memory_scope s) {
  return atomic_load_explicit(flag, memory_order_acquire, s);
}

__kernel void mp(__global int *data, __global atomic_int *flag, __global int *out, int wide) {
  memory_scope s = wide ? memory_scope_device : memory_scope_work_group;
  if (get_local_id(0) != 0)
    return;
  if (get_group_id(0) == 0) {
    data[0] = 42;
    publish(flag, s);
  } else {
    while (observe(flag, s) != 1)
      ;
    out[0] = data[0];
  }
}
