// Twin of negative-index.cl with the guard.
// kernel: backward_diff
// global: 32   local: 32
// arg: buffer int 32 fill=iota name=in
// arg: buffer int 32 fill=zero name=out
// expect: none
__kernel void backward_diff(__global const int *in, __global int *out) {
  int i = get_global_id(0);
  out[i] = i > 0 ? in[i] - in[i - 1] : in[0];
}
