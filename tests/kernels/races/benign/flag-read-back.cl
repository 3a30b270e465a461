// Twin of flag-read-back-benign.cl under the default checks: the reads that read back their own
// work-item's store, like the stores of one value, are benign races, hidden by default.
// kernel: group_done
// global: 64   local: 32
// arg: buffer int 64 fill=zero name=out
// expect: none
__kernel void group_done(__global int *out) {
  __local int done;
  if (get_local_id(0) == 0) done = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  done = 1;
  out[get_global_id(0)] = done;
}
