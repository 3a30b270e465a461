// Race-free twin of local-cmpxchg-fails-vs-plain-write.cl: item 1 writes with an atomic
// exchange, and atomics never race with atomics.
// kernel: probe
// global: 64   local: 64
// arg: buffer int 64 fill=zero name=seen
// expect: none
__kernel void probe(__global int *seen) {
  __local int slot;
  if (get_local_id(0) == 0)
    slot = 5;
  barrier(CLK_LOCAL_MEM_FENCE);
  seen[get_global_id(0)] = atomic_cmpxchg(&slot, -2, 0);
  if (get_local_id(0) == 1)
    atomic_xchg(&slot, 9);
}
