// vload4 through a float pointer two bytes into a buffer: vloadn needs its element's
// alignment (OpenCL C 6.15.11: the pointer is to the element type). Each work-item's vload
// counts once.
// kernel: k
// global: 16   local: 16
// arg: buffer float 80 fill=iota name=in
// arg: buffer float 64 fill=zero name=out
// oclgrind: none Oclgrind does not check the alignment of vloadn's pointer
// expect: misaligned-access memory=global buffer=in count=16
__kernel void k(__global const char *in, __global float4 *out) {
  size_t i = get_global_id(0);
  out[i] = vload4(0, (__global const float *)(in + 2 + 16 * i));
}
