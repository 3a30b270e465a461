// Twin of misaligned-fract-output without the undefined behaviour: the float4 pointer starts
// on the vector's boundary.
// kernel: k
// global: 16   local: 16
// arg: buffer float 64 fill=iota name=in
// arg: buffer float 68 fill=zero name=whole
// oclgrind: uninitialized-read Oclgrind takes the whole-number part fract stores through its pointer for an uninitialised value (a false report)
// expect: none
__kernel void k(__global float4 *in, __global char *whole) {
  size_t i = get_global_id(0);
  in[i] = fract(in[i] * 1.5f, (__global float4 *)(whole + 16 + 16 * i));
}
