// Twin of input-released.cl: the buffer stays alive until the kernel finished.
// kernel: copy
// global: 16   local: 16
// arg: buffer int 16 fill=iota name=in
// arg: buffer int 16 fill=zero name=out
// expect: none
__kernel void copy(__global const int *in, __global int *out) {
  int i = get_global_id(0);
  out[i] = in[i];
}
