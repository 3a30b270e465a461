// Twin of null-private-pointer: the other branch points at a variable too.
// kernel: k
// global: 64   local: 64
// arg: buffer int 64 fill=zero name=out
// arg: scalar int 0
// expect: none
__kernel void k(__global int *out, int i) {
  int x = 0, z = 5;
  int *y;
  if (i) y = &x; else y = &z;
  y[0] = y[0] + 1;
  out[get_global_id(0)] = x + z;
}
