// Twin of copy-into-kernel-input.cl: the copy waits for the launch that reads `in`.
// queue: out-of-order
// launch: scale
// global: 16   local: 16
// arg: buffer float 16 fill=iota name=in
// arg: buffer float 16 fill=zero name=out
// arg: buffer float 16 fill=ones name=staging
// command: copy staging in
// after: 0
// expect: none
__kernel void scale(__global const float *in, __global float *out, __global const float *staging) {
  out[get_global_id(0)] = in[get_global_id(0)] * 2.0f;
}
