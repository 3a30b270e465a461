// Twin of write-past-end.cl with the guard.
// kernel: shift_right
// global: 32   local: 32
// arg: buffer int 32 fill=iota name=in
// arg: buffer int 32 fill=zero name=out
// expect: none
__kernel void shift_right(__global const int *in, __global int *out) {
  int i = get_global_id(0);
  if (i + 1 < 32)
    out[i + 1] = in[i];
}
