// Twin of local-flag-benign.cl under the default checks: the same-value writes to the
// local flag are benign and hidden by default.
// kernel: group_done
// global: 64   local: 32
// arg: buffer int 2 fill=zero name=out
// expect: none
__kernel void group_done(__global int *out) {
  __local int done;
  if (get_local_id(0) == 0) done = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  done = 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0)
    out[get_group_id(0)] = done;
}
