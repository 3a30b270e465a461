// Twin of misaligned-float2-read without the undefined behaviour: vload2 reads the same
// floats and needs only a float's alignment (OpenCL C 6.15.11).
// kernel: pairs
// global: 64   local: 16
// arg: buffer float 130 fill=iota name=in
// arg: buffer float 128 fill=zero name=out
// expect: none
__kernel void pairs(__global const float *in, __global float2 *out) {
  size_t i = get_global_id(0);
  out[i] = vload2(0, in + 1 + 2 * i);
}
