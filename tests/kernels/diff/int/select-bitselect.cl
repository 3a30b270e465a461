// select, bitselect and the ?: operator on scalars and int4 vectors.
// kernel: sel
// global: 32   local: 32
// arg: buffer int 128 fill=random(21) name=a
// arg: buffer int 128 fill=random(22) name=b
// arg: buffer int 384 fill=zero name=out
// compare: exact out
__kernel void sel(__global const int *a, __global const int *b, __global int *out) {
  int i = get_global_id(0);
  int4 x = vload4(i, a), y = vload4(i, b);
  vstore4(select(x, y, x < y), 3 * i, out);
  vstore4(bitselect(x, y, (int4)(0x0f0f0f0f)), 3 * i + 1, out);
  vstore4(x > 0 ? x : -y, 3 * i + 2, out);
}
