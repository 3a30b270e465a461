// Race-free twin of misaligned-int-read: the four bytes at byte 2 are read one by one and
// assembled (little-endian), which is what the misaligned read meant.
// kernel: peek
// global: 1   local: 1
// arg: buffer int 4 fill=iota name=in
// arg: buffer int 1 fill=zero name=out
// expect: none
__kernel void peek(__global int *in, __global int *out) {
  __global uchar *b = (__global uchar *)in + 2;
  out[0] = b[0] | (b[1] << 8) | (b[2] << 16) | ((uint)b[3] << 24);
}
