// A barrier inside a branch on the local id: half the group never reaches it.
// kernel: halves
// global: 32   local: 32
// arg: buffer int 32 fill=zero name=out
// twin: if-group-id.cl
// expect: barrier-divergence
__kernel void halves(__global int *out) {
  int l = get_local_id(0);
  if (l < 16) {
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[get_global_id(0)] = l;
}
