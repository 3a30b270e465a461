// Saturating add/sub for char, uchar, short, ushort, int, uint, long.
// kernel: sat
// global: 64   local: 16
// arg: buffer int 64 fill=random(13) name=a
// arg: buffer int 64 fill=random(14) name=b
// arg: buffer long 640 fill=zero name=out
// compare: exact out
__kernel void sat(__global const int *a, __global const int *b, __global long *out) {
  int i = get_global_id(0);
  int x = a[i], y = b[i];
  __global long *p = out + 10 * i;
  p[0] = add_sat((char)x, (char)y);
  p[1] = add_sat((uchar)x, (uchar)y);
  p[2] = sub_sat((char)x, (char)y);
  p[3] = sub_sat((uchar)x, (uchar)y);
  p[4] = add_sat((short)x, (short)y);
  p[5] = sub_sat((ushort)x, (ushort)y);
  p[6] = add_sat(x, y);
  p[7] = sub_sat((uint)x, (uint)y);
  p[8] = add_sat((long)x << 32, (long)y << 32);
  p[9] = sub_sat((long)x << 32, (long)y << 32);
}
