// fract stores its whole-number part through a float4 pointer four bytes into a buffer: the
// pointer is to the whole float4 (OpenCL C 6.15.2), so it needs the vector's 16-byte
// alignment. Each work-item's store counts once.
// kernel: k
// global: 16   local: 16
// arg: buffer float 64 fill=iota name=in
// arg: buffer float 68 fill=zero name=whole
// oclgrind: uninitialized-read Oclgrind takes the whole-number part fract stores through its pointer for an uninitialised value (a false report) and does not check the pointer's alignment
// expect: misaligned-access memory=global buffer=whole count=16
__kernel void k(__global float4 *in, __global char *whole) {
  size_t i = get_global_id(0);
  in[i] = fract(in[i] * 1.5f, (__global float4 *)(whole + 4 + 16 * i));
}
