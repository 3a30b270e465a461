// A recursion-free chain of helper functions (noinline) with pointer arguments to
// private arrays and by-value vectors.
// kernel: chain
// global: 32   local: 32
// arg: buffer int 32 fill=random(83,0,1000) name=in
// arg: buffer int 64 fill=zero name=out
// compare: exact out
__attribute__((noinline)) int digits(int v, int *d) {
  int n = 0;
  do { d[n++] = v % 10; v /= 10; } while (v);
  return n;
}
__attribute__((noinline)) int weigh(const int *d, int n, int2 w) {
  int s = 0;
  for (int k = 0; k < n; k++) s += d[k] * (k % 2 ? w.x : w.y);
  return s;
}
__attribute__((noinline)) int2 both(int v) {
  int d[10];
  int n = digits(v, d);
  return (int2)(n, weigh(d, n, (int2)(3, 7)));
}
__kernel void chain(__global const int *in, __global int *out) {
  int i = get_global_id(0);
  int2 r = both(in[i]);
  out[2 * i] = r.x;
  out[2 * i + 1] = r.y;
}
