// 16-bit signed and unsigned arithmetic, including negative divisors.
// kernel: arith16
// global: 64   local: 32
// arg: buffer short 64 fill=random(3) name=a
// arg: buffer short 64 fill=random(4,-300,300) name=b
// arg: buffer short 256 fill=zero name=out
// arg: buffer ushort 192 fill=zero name=uout
// compare: exact out uout
__kernel void arith16(__global const short *a, __global const short *b, __global short *out, __global ushort *uout) {
  int i = get_global_id(0);
  short x = a[i], y = b[i];
  if (y == 0) y = 7;
  ushort ux = (ushort)x, uy = (ushort)y;
  out[4 * i + 0] = x + y;
  out[4 * i + 1] = x * y;
  out[4 * i + 2] = x / y;
  out[4 * i + 3] = x % y;
  uout[3 * i + 0] = ux - uy;
  uout[3 * i + 1] = ux / uy;
  uout[3 * i + 2] = ux % uy;
}
