// Twin of cl12-global-lock.cl: the same OpenCL 1.2 lock taken by work-items 0 and 1 of one
// work-group (each group has its own lock and total). mem_fence's memory_scope_work_group
// includes both: the release fence before the unlocking atomic_xchg synchronises with the
// acquire fence after the atomic_cmpxchg that reads its 0, so the increments are race-free.
// kernel: locked_add
// global: 128   local: 64
// arg: buffer int 2 fill=zero name=lock
// arg: buffer int 2 fill=zero name=total
// expect: none
// oclgrind: data-race Oclgrind has no memory model: mem_fence does not synchronise work-items there, so it reports the lock-protected increments as racing
__kernel void locked_add(__global int *lock, __global int *total) {
  int g = get_group_id(0);
  if (get_local_id(0) > 1)
    return;
  while (atomic_cmpxchg(&lock[g], 0, 1))
    ;
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  total[g] += 1;
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  atomic_xchg(&lock[g], 0);
}
