// Twin of overlapping-sub-buffers.cl with the two views of the buffer disjoint (elements
// 0..63 read, 64..127 written): no race.
// kernel: shift
// global: 64   local: 8
// arg: buffer int 256 fill=iota name=all
// arg: sub all 64 64 name=dst
// arg: sub all 0 64 name=src flags=read-only
// expect: none
__kernel void shift(__global int *all, __global int *dst, __global const int *src) {
  size_t i = get_global_id(0);
  dst[i] = src[i] + 1;
}
