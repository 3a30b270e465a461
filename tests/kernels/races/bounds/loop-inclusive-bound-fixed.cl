// Twin of loop-inclusive-bound.cl with `<`.
// kernel: total
// global: 1   local: 1
// arg: buffer int 16 fill=ones name=in
// arg: buffer int 1 fill=zero name=out
// arg: scalar int 16
// expect: none
__kernel void total(__global const int *in, __global int *out, int n) {
  int s = 0;
  for (int k = 0; k < n; k++)
    s += in[k];
  out[0] = s;
}
