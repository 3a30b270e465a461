// Every compare-exchange fails (the slot never holds -2), so each only reads the slot; item 0's
// plain write races with those atomic reads whichever runs first (issue #11 item 6: under
// lockstep the reads come first and were missed while an atomic read left no record).
// kernel: probe
// global: 64   local: 64
// arg: buffer int 1 fill=values(5) name=slot
// arg: buffer int 64 fill=zero name=seen
// expect: data-race race=atomic-plain memory=global scope=intra-group buffer=slot
__kernel void probe(__global int *slot, __global int *seen) {
  seen[get_global_id(0)] = atomic_cmpxchg(slot, -2, 0);
  if (get_global_id(0) == 0)
    *slot = 9;
}
