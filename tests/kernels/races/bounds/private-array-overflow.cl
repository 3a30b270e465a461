// A work-item's own array written one element past its end at an index the host chose
// (an index known only at run time, so every optimisation level keeps the array).
// kernel: fill
// global: 8   local: 8
// arg: buffer int 2 fill=values(4,1) name=n
// arg: buffer int 8 fill=zero name=out
// expect: out-of-bounds memory=private
__kernel void fill(__global const int *n, __global int *out) {
  int a[4];
  for (int i = 0; i < 4; i++) a[i] = i + (int)get_global_id(0);
  a[n[0]] = 7;
  out[get_global_id(0)] = a[n[1]];
}
