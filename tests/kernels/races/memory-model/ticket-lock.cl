// A ticket lock (work-item 0 of each of 4 groups draws a ticket, waits until now_serving
// reaches it, increments, serves the next) with relaxed loads and stores of now_serving: the
// turns come one after the other, but nothing orders them, so the increments of total race.
// kernel: ticket_add
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no C11 atomics (atomic_store_explicit undefined)
// global: 256   local: 64
// arg: buffer int 1 fill=zero name=next_ticket
// arg: buffer int 1 fill=zero name=now_serving
// arg: buffer int 1 fill=zero name=total
// expect: data-race race=read-write memory=global scope=inter-group buffer=total sync=relaxed-write
// expect: data-race race=write-write memory=global scope=inter-group buffer=total sync=relaxed-write
__kernel void ticket_add(__global atomic_int *next_ticket, __global atomic_int *now_serving,
                         __global int *total) {
  if (get_local_id(0) != 0)
    return;
  int my = atomic_fetch_add_explicit(next_ticket, 1, memory_order_relaxed, memory_scope_device);
  while (atomic_load_explicit(now_serving, memory_order_relaxed, memory_scope_device) != my)
    ;
  *total += 1;
  atomic_store_explicit(now_serving, my + 1, memory_order_relaxed, memory_scope_device);
}
