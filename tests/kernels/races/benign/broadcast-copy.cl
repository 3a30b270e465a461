// Twin of broadcast-copy-benign.cl under the default checks: every work-item copies
// in[0] to out[0], a benign race hidden by default.
// kernel: broadcast
// global: 32   local: 32
// arg: buffer float 4 fill=values(2.5,1,1,1) name=in
// arg: buffer float 1 fill=zero name=out
// expect: none
__kernel void broadcast(__global const float *in, __global float *out) {
  out[0] = in[0];
}
