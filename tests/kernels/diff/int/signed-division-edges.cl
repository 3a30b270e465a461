// Signed division and remainder truncate toward zero for every sign combination.
// kernel: divs
// global: 16   local: 16
// arg: buffer int 16 fill=values(7,-7,7,-7,1,-1,100,-100,2147483647,-2147483647,5,-5,0,3,-3,9) name=a
// arg: buffer int 16 fill=values(2,2,-2,-2,3,3,-7,7,2,3,-5,5,9,-1,1,-4) name=b
// arg: buffer int 32 fill=zero name=out
// compare: exact out
__kernel void divs(__global const int *a, __global const int *b, __global int *out) {
  int i = get_global_id(0);
  out[2 * i] = a[i] / b[i];
  out[2 * i + 1] = a[i] % b[i];
}
