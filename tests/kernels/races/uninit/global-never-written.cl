// The input buffer was created without host data and never written.
// kernel: twice
// global: 32   local: 16
// arg: buffer float 32 fill=none name=in
// arg: buffer float 32 fill=zero name=out
// expect: uninitialized-read memory=global buffer=in
__kernel void twice(__global const float *in, __global float *out) {
  int i = get_global_id(0);
  out[i] = 2.0f * in[i];
}
