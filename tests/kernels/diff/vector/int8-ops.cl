// int8 arithmetic, shifts, comparisons (true = -1) and horizontal extraction.
// kernel: i8
// global: 16   local: 16
// arg: buffer int 128 fill=random(52) name=a
// arg: buffer int 384 fill=zero name=out
// compare: exact out
__kernel void i8(__global const int *a, __global int *out) {
  int i = get_global_id(0);
  int8 v = vload8(i, a);
  int8 w = vload8((i + 3) % 16, a);
  vstore8(v + w * 3, 3 * i, out);
  vstore8((v >> 3) ^ (w << 2), 3 * i + 1, out);
  vstore8(v < w, 3 * i + 2, out);
}
