// clz and popcount on 8/16/32/64-bit values, including zero.
// kernel: bits
// global: 64   local: 32
// arg: buffer ulong 64 fill=random(17) name=a
// arg: buffer int 512 fill=zero name=out
// compare: exact out
__kernel void bits(__global const ulong *a, __global int *out) {
  int i = get_global_id(0);
  ulong x = a[i] >> (i % 64);
  if (i == 5) x = 0;
  out[8 * i + 0] = clz((uchar)x);
  out[8 * i + 1] = clz((ushort)x);
  out[8 * i + 2] = clz((uint)x);
  out[8 * i + 3] = (int)clz(x);
  out[8 * i + 4] = popcount((char)x);
  out[8 * i + 5] = popcount((short)x);
  out[8 * i + 6] = popcount((int)x);
  out[8 * i + 7] = (int)popcount(x);
}
