// 64-bit signed/unsigned arithmetic.
// kernel: arith64
// global: 64   local: 16
// arg: buffer long 64 fill=random(7) name=a
// arg: buffer long 64 fill=random(8,-5000000000,5000000000) name=b
// arg: buffer long 384 fill=zero name=out
// compare: exact out
__kernel void arith64(__global const long *a, __global const long *b, __global long *out) {
  int i = get_global_id(0);
  long x = a[i], y = b[i];
  if (y == 0) y = 3;
  ulong ux = x, uy = y;
  out[6 * i + 0] = x + y;
  out[6 * i + 1] = x * y;
  out[6 * i + 2] = x / y;
  out[6 * i + 3] = x % y;
  out[6 * i + 4] = (long)(ux / uy);
  out[6 * i + 5] = (long)(ux % uy) ^ (x >> 7);
}
