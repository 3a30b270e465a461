// Group 0 only reads the slot atomically (its compare-exchanges all fail); an item of group 1
// writes it plainly. Groups are never ordered within a launch: a race in either group order.
// kernel: probe
// global: 64   local: 32
// arg: buffer int 1 fill=values(5) name=slot
// arg: buffer int 64 fill=zero name=seen
// expect: data-race race=atomic-plain memory=global scope=inter-group buffer=slot
__kernel void probe(__global int *slot, __global int *seen) {
  if (get_group_id(0) == 0)
    seen[get_global_id(0)] = atomic_cmpxchg(slot, -2, 0);
  else if (get_local_id(0) == 7)
    *slot = 9;
}
