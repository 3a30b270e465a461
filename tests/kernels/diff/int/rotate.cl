// rotate() on uchar, ushort, uint, ulong with counts beyond the bit width.
// kernel: rot
// global: 64   local: 64
// arg: buffer ulong 64 fill=random(15) name=a
// arg: buffer int 64 fill=random(16,0,130) name=n
// arg: buffer ulong 256 fill=zero name=out
// compare: exact out
__kernel void rot(__global const ulong *a, __global const int *n, __global ulong *out) {
  int i = get_global_id(0);
  ulong x = a[i];
  int k = n[i];
  out[4 * i + 0] = rotate((uchar)x, (uchar)k);
  out[4 * i + 1] = rotate((ushort)x, (ushort)k);
  out[4 * i + 2] = rotate((uint)x, (uint)k);
  out[4 * i + 3] = rotate(x, (ulong)k);
}
