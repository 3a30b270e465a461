// Kernels see a sub-buffer from its origin: reads through one view of a buffer and writes
// through another land at the parent's offsets (elements 64..127 written from 0..63, the rest
// of the parent untouched), and a read back of the parent or of a view shows them.
// kernel: scale
// global: 64   local: 16
// arg: buffer int 256 fill=iota(5,3) name=all
// arg: sub all 64 64 name=dst
// arg: sub all 0 64 name=src flags=read-only
// arg: scalar int -7
// compare: exact all dst src
__kernel void scale(__global int *all, __global int *dst, __global const int *src, int k) {
  size_t i = get_global_id(0);
  dst[i] = src[i] * k + (int)i;
}
