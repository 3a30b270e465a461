// The classic OpenCL 1.2 global lock across work-groups (work-item 0 of each of 2 groups):
// while (atomic_cmpxchg(lock, 0, 1)); mem_fence; *total += 1; mem_fence; atomic_xchg(lock, 0).
// Under the OpenCL 3.0 memory model the 1.2 atomic_* built-ins are relaxed and mem_fence is a
// memory_scope_work_group acq_rel fence, whose scope does not include the other group: the
// fences do not synchronise across groups and the increments of total race, although the
// lock keeps them apart in time (the idiom only worked by the grace of real hardware).
// kernel: locked_add
// global: 128   local: 64
// arg: buffer int 1 fill=zero name=lock
// arg: buffer int 1 fill=zero name=total
// expect: data-race race=read-write memory=global scope=inter-group buffer=total sync=release-scope
// expect: data-race race=write-write memory=global scope=inter-group buffer=total sync=release-scope
__kernel void locked_add(__global int *lock, __global int *total) {
  if (get_local_id(0) != 0)
    return;
  while (atomic_cmpxchg(lock, 0, 1))
    ;
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  *total += 1;
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  atomic_xchg(lock, 0);
}
