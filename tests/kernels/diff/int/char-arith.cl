// 8-bit signed and unsigned arithmetic with wrap-around, division and remainder.
// kernel: arith8
// global: 64   local: 16
// arg: buffer char 64 fill=random(1) name=a
// arg: buffer char 64 fill=random(2,1,100) name=b
// arg: buffer char 384 fill=zero name=out
// arg: buffer uchar 256 fill=zero name=uout
// compare: exact out uout
__kernel void arith8(__global const char *a, __global const char *b, __global char *out, __global uchar *uout) {
  int i = get_global_id(0);
  char x = a[i], y = b[i];
  uchar ux = (uchar)x, uy = (uchar)y;
  out[6 * i + 0] = x + y;
  out[6 * i + 1] = x - y;
  out[6 * i + 2] = x * y;
  out[6 * i + 3] = x / y;
  out[6 * i + 4] = x % y;
  out[6 * i + 5] = -x;
  uout[4 * i + 0] = ux + uy;
  uout[4 * i + 1] = ux * uy;
  uout[4 * i + 2] = ux / uy;
  uout[4 * i + 3] = ux % uy;
}
