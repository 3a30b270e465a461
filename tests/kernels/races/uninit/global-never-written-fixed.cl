// Twin of global-never-written.cl: the host initialises the input.
// kernel: twice
// global: 32   local: 16
// arg: buffer float 32 fill=iota name=in
// arg: buffer float 32 fill=zero name=out
// expect: none
__kernel void twice(__global const float *in, __global float *out) {
  int i = get_global_id(0);
  out[i] = 2.0f * in[i];
}
