// Twin of two-branches.cl: one barrier, hoisted out of the branches.
// kernel: split
// global: 16   local: 16
// arg: buffer int 16 fill=zero name=out
// expect: none
__kernel void split(__global int *out) {
  int l = get_local_id(0);
  out[l] = (l % 2) ? 1 : 2;
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  out[l] += (l % 2) ? 10 : 20;
}
