// A barrier with only CLK_LOCAL_MEM_FENCE does not order global memory: the neighbour
// read of `buf` after it races with the write before it.
// kernel: exchange
// global: 32   local: 32
// arg: buffer int 32 fill=iota name=buf
// arg: buffer int 32 fill=zero name=out
// expect: data-race race=read-write memory=global scope=intra-group buffer=buf
__kernel void exchange(__global int *buf, __global int *out) {
  int i = get_global_id(0);
  buf[i] = i * 7;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[i] = buf[(i + 1) % 32];
}
