// Twin of local-atomic-vs-plain.cl: a barrier before the plain read.
// kernel: local_count
// global: 64   local: 32
// arg: buffer int 2 fill=zero name=out
// expect: none
__kernel void local_count(__global int *out) {
  __local int hits;
  if (get_local_id(0) == 0) hits = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&hits);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0)
    out[get_group_id(0)] = hits;
}
