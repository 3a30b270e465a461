// 32-bit signed/unsigned arithmetic, comparisons and bit operations.
// kernel: arith32
// global: 128   local: 32
// arg: buffer int 128 fill=random(5) name=a
// arg: buffer int 128 fill=random(6,-100000,100000) name=b
// arg: buffer int 1024 fill=zero name=out
// compare: exact out
__kernel void arith32(__global const int *a, __global const int *b, __global int *out) {
  int i = get_global_id(0);
  int x = a[i], y = b[i];
  if (y == 0) y = 13;
  uint ux = x, uy = y;
  out[8 * i + 0] = x + y;
  out[8 * i + 1] = x * y;
  out[8 * i + 2] = x / y;
  out[8 * i + 3] = x % y;
  out[8 * i + 4] = (int)(ux / uy);
  out[8 * i + 5] = (int)(ux % uy);
  out[8 * i + 6] = (x < y) | ((ux < uy) << 1) | ((x == y) << 2);
  out[8 * i + 7] = (x & y) ^ (x | ~y);
}
