// vloadN/vstoreN for N = 2, 3, 4, 8, 16 at unaligned element offsets.
// kernel: lanes
// global: 4   local: 4
// arg: buffer short 200 fill=iota(-50) name=a
// arg: buffer short 200 fill=zero name=out
// compare: exact out
__kernel void lanes(__global const short *a, __global short *out) {
  int i = get_global_id(0);
  __global const short *p = a + 1 + 40 * i;
  __global short *q = out + 40 * i;
  vstore2(vload2(0, p) + (short)1, 0, q + 1);
  vstore3(vload3(0, p + 3) * (short)2, 0, q + 3);
  vstore4(vload4(0, p + 6) - (short)3, 0, q + 6);
  vstore8(vload8(0, p + 10) ^ (short)0x55, 0, q + 10);
  vstore16(vload16(0, p + 18) + vload16(0, p + 19), 0, q + 18);
}
