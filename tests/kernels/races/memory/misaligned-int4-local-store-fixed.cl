// Twin of misaligned-int4-local-store without the undefined behaviour: vstore4 writes the
// same bytes and needs only an int's alignment (OpenCL C 6.15.11).
// kernel: spread
// global: 32   local: 16
// arg: buffer int 128 fill=iota name=in
// arg: buffer int 128 fill=zero name=out
// arg: local char 272
// expect: none
__kernel void spread(__global const int4 *in, __global int *out, __local char *scratch) {
  size_t i = get_local_id(0);
  vstore4(in[get_global_id(0)], 0, (__local int *)(scratch + 8 + 16 * i));
  barrier(CLK_LOCAL_MEM_FENCE);
  __local int *q = (__local int *)(scratch + 8);
  size_t j = 15 - i;
  for (int k = 0; k < 4; k++)
    out[4 * get_global_id(0) + k] = q[4 * j + k];
}
