// Twin of private-array-overflow.cl: the host's index (3) is the array's last element.
// kernel: fill
// global: 8   local: 8
// arg: buffer int 2 fill=values(3,1) name=n
// arg: buffer int 8 fill=zero name=out
// expect: none
__kernel void fill(__global const int *n, __global int *out) {
  int a[4];
  for (int i = 0; i < 4; i++) a[i] = i + (int)get_global_id(0);
  a[n[0]] = 7;
  out[get_global_id(0)] = a[n[1]];
}
