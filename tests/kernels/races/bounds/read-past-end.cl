// Off-by-one read: the last work-item reads in[64] of a 64-element buffer.
// kernel: forward_diff
// global: 64   local: 16
// arg: buffer float 64 fill=iota name=in
// arg: buffer float 64 fill=zero name=out
// expect: out-of-bounds memory=global buffer=in
// oclgrind: out-of-bounds,uninitialized-read Oclgrind treats the value an invalid read returns as uninitialised and reports it again when it is stored
__kernel void forward_diff(__global const float *in, __global float *out) {
  int i = get_global_id(0);
  out[i] = in[i + 1] - in[i];
}
