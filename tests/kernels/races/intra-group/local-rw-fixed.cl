// Twin of local-rw.cl: a barrier separates the update from the neighbour read.
// kernel: shift_left
// global: 64   local: 32
// arg: buffer int 64 fill=iota name=out
// arg: local int 32
// expect: none
__kernel void shift_left(__global int *out, __local int *tmp) {
  int l = get_local_id(0);
  int g = get_global_id(0);
  tmp[l] = out[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  tmp[l] = tmp[l] * 2;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[g] = tmp[(l + 1) % 32];
}
