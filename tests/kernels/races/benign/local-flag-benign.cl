// All work-items of a group set a local "done" flag to 1 before a barrier: same-value
// writes to local memory.
// kernel: group_done
// global: 64   local: 32
// arg: buffer int 2 fill=zero name=out
// checks: races,benign
// twin: local-flag.cl
// expect: benign-race memory=local scope=intra-group buffer=done
__kernel void group_done(__global int *out) {
  __local int done;
  if (get_local_id(0) == 0) done = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  done = 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0)
    out[get_group_id(0)] = done;
}
