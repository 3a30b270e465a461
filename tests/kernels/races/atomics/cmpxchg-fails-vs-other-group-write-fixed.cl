// Race-free twin of cmpxchg-fails-vs-other-group-write.cl: group 1 writes the slot with an
// atomic exchange, and atomics never race with atomics.
// kernel: probe
// global: 64   local: 32
// arg: buffer int 1 fill=values(5) name=slot
// arg: buffer int 64 fill=zero name=seen
// expect: none
__kernel void probe(__global int *slot, __global int *seen) {
  if (get_group_id(0) == 0)
    seen[get_global_id(0)] = atomic_cmpxchg(slot, -2, 0);
  else if (get_local_id(0) == 7)
    atomic_xchg(slot, 9);
}
