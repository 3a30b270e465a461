// Local memory: after a barrier every item's compare-exchange fails (an atomic read) while
// item 1 writes the word plainly.
// kernel: probe
// global: 64   local: 64
// arg: buffer int 64 fill=zero name=seen
// expect: data-race race=atomic-plain memory=local scope=intra-group buffer=slot
__kernel void probe(__global int *seen) {
  __local int slot;
  if (get_local_id(0) == 0)
    slot = 5;
  barrier(CLK_LOCAL_MEM_FENCE);
  seen[get_global_id(0)] = atomic_cmpxchg(&slot, -2, 0);
  if (get_local_id(0) == 1)
    slot = 9;
}
