// Local-memory counter: atomic increments race with a plain read by work-item 0 in the
// same barrier interval.
// kernel: local_count
// global: 64   local: 32
// arg: buffer int 2 fill=zero name=out
// expect: data-race race=atomic-plain memory=local scope=intra-group buffer=hits
__kernel void local_count(__global int *out) {
  __local int hits;
  if (get_local_id(0) == 0) hits = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&hits);
  if (get_local_id(0) == 0)
    out[get_group_id(0)] = hits;
}
