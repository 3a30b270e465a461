// Twin of global-even-written.cl: read the even element the neighbour wrote.
// kernel: interleave
// global: 16   local: 16
// arg: buffer int 32 fill=none name=buf
// arg: buffer int 16 fill=zero name=out
// expect: none
__kernel void interleave(__global int *buf, __global int *out) {
  int i = get_global_id(0);
  buf[2 * i] = i;
  barrier(CLK_GLOBAL_MEM_FENCE);
  out[i] = buf[(2 * i + 2) % 32];
}
