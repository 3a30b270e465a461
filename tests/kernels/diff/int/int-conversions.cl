// Integer conversions: truncation, sign and zero extension, and the _sat variants.
// kernel: conv
// global: 64   local: 64
// arg: buffer long 64 fill=random(20) name=a
// arg: buffer int 640 fill=zero name=out
// compare: exact out
__kernel void conv(__global const long *a, __global int *out) {
  int i = get_global_id(0);
  long x = a[i] >> (i % 48);
  __global int *p = out + 10 * i;
  p[0] = (char)x;
  p[1] = (uchar)x;
  p[2] = (short)x;
  p[3] = (ushort)x;
  p[4] = convert_char_sat(x);
  p[5] = convert_uchar_sat(x);
  p[6] = convert_short_sat((int)x);
  p[7] = convert_ushort_sat((int)x);
  p[8] = convert_int_sat(x);
  p[9] = (int)convert_uint_sat(x);
}
