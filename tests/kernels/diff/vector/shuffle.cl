// shuffle and shuffle2 with constant and data-dependent masks.
// kernel: shuf
// global: 16   local: 16
// arg: buffer int 64 fill=iota(100) name=a
// arg: buffer uint 64 fill=random(54,0,7) name=m
// arg: buffer int 192 fill=zero name=out
// compare: exact out
__kernel void shuf(__global const int *a, __global const uint *m, __global int *out) {
  int i = get_global_id(0);
  int4 x = vload4(i, a);
  int4 y = vload4((i + 5) % 16, a);
  uint4 mask = vload4(i, m);
  vstore4(shuffle(x, (uint4)(3, 1, 2, 0)), 3 * i, out);
  vstore4(shuffle(x, mask & 3u), 3 * i + 1, out);
  vstore4(shuffle2(x, y, mask), 3 * i + 2, out);
}
