// Every work-item copies in[0] to out[0]: all writes store the same value.
// kernel: broadcast
// global: 32   local: 32
// arg: buffer float 4 fill=values(2.5,1,1,1) name=in
// arg: buffer float 1 fill=zero name=out
// checks: races,benign
// twin: broadcast-copy.cl
// expect: benign-race memory=global scope=intra-group buffer=out
__kernel void broadcast(__global const float *in, __global float *out) {
  out[0] = in[0];
}
