// mul_hi and mad_hi for 8/16/32/64-bit signed and unsigned operands.
// kernel: mulhi
// global: 64   local: 32
// arg: buffer long 64 fill=random(11) name=a
// arg: buffer long 64 fill=random(12) name=b
// arg: buffer long 384 fill=zero name=out
// compare: exact out
__kernel void mulhi(__global const long *a, __global const long *b, __global long *out) {
  int i = get_global_id(0);
  long x = a[i], y = b[i];
  out[6 * i + 0] = mul_hi(x, y);
  out[6 * i + 1] = (long)mul_hi((ulong)x, (ulong)y);
  out[6 * i + 2] = mul_hi((int)x, (int)y);
  out[6 * i + 3] = mul_hi((uint)x, (uint)y);
  out[6 * i + 4] = mul_hi((short)x, (short)y) + mul_hi((uchar)x, (uchar)y);
  out[6 * i + 5] = mad_hi((int)x, (int)y, (int)(x >> 32));
}
