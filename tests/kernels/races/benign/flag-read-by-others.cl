// Like flag-read-back-benign.cl, but only odd work-items set the flag: an even one reads 0 or 1
// depending on the order, a data race (the stores of 1 stay a benign write-write race).
// kernel: group_done
// global: 64   local: 32
// arg: buffer int 64 fill=zero name=out
// checks: races,benign
// twin: flag-read-back.cl
// expect: benign-race race=write-write memory=local scope=intra-group buffer=done
// expect: data-race race=read-write memory=local scope=intra-group buffer=done
__kernel void group_done(__global int *out) {
  __local int done;
  if (get_local_id(0) == 0) done = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) % 2) done = 1;
  out[get_global_id(0)] = done;
}
