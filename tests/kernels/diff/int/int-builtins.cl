// abs, abs_diff, hadd, rhadd, min, max, clamp, mad24, mul24, mad_sat on int/uint.
// kernel: ib
// global: 64   local: 16
// arg: buffer int 64 fill=random(18) name=a
// arg: buffer int 64 fill=random(19) name=b
// arg: buffer uint 640 fill=zero name=out
// compare: exact out
__kernel void ib(__global const int *a, __global const int *b, __global uint *out) {
  int i = get_global_id(0);
  int x = a[i], y = b[i];
  __global uint *p = out + 10 * i;
  p[0] = abs(x);
  p[1] = abs_diff(x, y);
  p[2] = hadd(x, y);
  p[3] = rhadd((uint)x, (uint)y);
  p[4] = min(x, y);
  p[5] = max((uint)x, (uint)y);
  p[6] = clamp(x, -1000, 1000);
  p[7] = mad24(x & 0x7fffff, y & 0x7fffff, 5);
  p[8] = mul24((uint)x & 0xffffff, (uint)y & 0xffffff);
  p[9] = mad_sat(x, y, x);
}
