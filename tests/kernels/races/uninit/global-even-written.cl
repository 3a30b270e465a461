// Work-items write the even elements of an uninitialised buffer, then (after a global
// barrier) read their odd neighbour, which nobody wrote.
// kernel: interleave
// global: 16   local: 16
// arg: buffer int 32 fill=none name=buf
// arg: buffer int 16 fill=zero name=out
// expect: uninitialized-read memory=global buffer=buf
__kernel void interleave(__global int *buf, __global int *out) {
  int i = get_global_id(0);
  buf[2 * i] = i;
  barrier(CLK_GLOBAL_MEM_FENCE);
  out[i] = buf[2 * i + 1];
}
