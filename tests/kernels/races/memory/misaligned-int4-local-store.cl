// An int4 stored to __local memory 8 bytes past a multiple of 16: a 4-element vector of
// ints needs 16-byte alignment (OpenCL C 6.3), its elements only 4.
// kernel: spread
// global: 32   local: 16
// arg: buffer int 128 fill=iota name=in
// arg: buffer int 128 fill=zero name=out
// arg: local char 272
// expect: misaligned-access memory=local buffer=scratch count=32
__kernel void spread(__global const int4 *in, __global int *out, __local char *scratch) {
  size_t i = get_local_id(0);
  *(__local int4 *)(scratch + 8 + 16 * i) = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  __local int *q = (__local int *)(scratch + 8);
  size_t j = 15 - i;
  for (int k = 0; k < 4; k++)
    out[4 * get_global_id(0) + k] = q[4 * j + k];
}
