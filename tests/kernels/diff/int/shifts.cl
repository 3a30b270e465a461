// Shifts: OpenCL masks the shift count by the bit width (x << 33 on int is x << 1);
// arithmetic right shift on signed, logical on unsigned, 8/16/32/64-bit.
// kernel: shifts
// global: 64   local: 64
// arg: buffer int 64 fill=random(9) name=a
// arg: buffer int 64 fill=random(10,0,200) name=s
// arg: buffer int 256 fill=zero name=out
// arg: buffer long 128 fill=zero name=lout
// arg: buffer char 128 fill=zero name=cout
// compare: exact out lout cout
__kernel void shifts(__global const int *a, __global const int *s, __global int *out, __global long *lout, __global char *cout) {
  int i = get_global_id(0);
  int x = a[i], n = s[i];
  out[4 * i + 0] = x << n;
  out[4 * i + 1] = x >> n;
  out[4 * i + 2] = (int)((uint)x >> n);
  out[4 * i + 3] = (int)((short)x >> (n & 31));
  long lx = ((long)x << 32) | (uint)a[(i + 1) % 64];
  lout[2 * i + 0] = lx << n;
  lout[2 * i + 1] = (long)((ulong)lx >> n);
  char cx = (char)x;
  cout[2 * i + 0] = cx << (char)n;
  cout[2 * i + 1] = cx >> (char)n;
}
