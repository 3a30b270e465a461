// Twin of neighbour-group-rw.cl: input and output are separate buffers.
// kernel: halo
// global: 64   local: 16
// arg: buffer int 65 fill=iota name=src
// arg: buffer int 64 fill=zero name=dst
// expect: none
__kernel void halo(__global const int *src, __global int *dst) {
  int i = get_global_id(0);
  dst[i] = src[i + 1] + 1;
}
