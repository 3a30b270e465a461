// Twin of misaligned-struct-copy without the undefined behaviour: the same sixteen bytes
// are copied one by one into the aligned struct.
// kernel: k
// global: 16   local: 16
// arg: buffer int 80 fill=iota name=in
// arg: buffer int 64 fill=zero name=out
// expect: none
struct rec { int a, b, c, d; };
__kernel void k(__global const char *in, __global struct rec *out) {
  size_t i = get_global_id(0);
  __global char *o = (__global char *)&out[i];
  for (int k = 0; k < 16; k++)
    o[k] = in[2 + 16 * i + k];
}
