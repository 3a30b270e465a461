// Off-by-one write: the last work-item writes out[32] of a 32-element buffer.
// kernel: shift_right
// global: 32   local: 32
// arg: buffer int 32 fill=iota name=in
// arg: buffer int 32 fill=zero name=out
// expect: out-of-bounds memory=global buffer=out
__kernel void shift_right(__global const int *in, __global int *out) {
  int i = get_global_id(0);
  out[i + 1] = in[i];
}
