// One compare-exchange succeeds (the slot holds -1) and so writes, racing with the other
// items' plain reads of the slot.
// kernel: probe
// global: 64   local: 64
// arg: buffer int 1 fill=values(-1) name=slot
// arg: buffer int 64 fill=zero name=seen
// expect: data-race race=atomic-plain memory=global scope=intra-group buffer=slot
__kernel void probe(__global int *slot, __global int *seen) {
  int old = atomic_cmpxchg(slot, -1, (int)get_global_id(0));
  seen[get_global_id(0)] = old + *slot;
}
