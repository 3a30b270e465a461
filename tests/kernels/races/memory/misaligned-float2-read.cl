// A float2 read through a pointer one float past the vector's alignment. OpenCL C 6.3
// aligns a vector to its size (8 bytes here); every work-item's float2 starts at 4 mod 8.
// Each element is 4-aligned, so only the vector's start shows it; each vector counts once.
// kernel: pairs
// global: 64   local: 16
// arg: buffer float 130 fill=iota name=in
// arg: buffer float 128 fill=zero name=out
// expect: misaligned-access memory=global buffer=in count=64
__kernel void pairs(__global const float *in, __global float2 *out) {
  size_t i = get_global_id(0);
  out[i] = *(__global const float2 *)(in + 1 + 2 * i);
}
