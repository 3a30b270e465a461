// Twin of misaligned-vload without the undefined behaviour: the same sixteen bytes read as
// a uchar16 (vload16 of uchar needs one-byte alignment) and taken as four floats.
// kernel: k
// global: 16   local: 16
// arg: buffer float 80 fill=iota name=in
// arg: buffer float 64 fill=zero name=out
// expect: none
__kernel void k(__global const char *in, __global float4 *out) {
  size_t i = get_global_id(0);
  out[i] = as_float4(vload16(0, (__global const uchar *)(in + 2 + 16 * i)));
}
