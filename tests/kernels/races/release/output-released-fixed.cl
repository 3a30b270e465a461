// Twin of output-released.cl without the early release.
// kernel: fill
// global: 32   local: 16
// arg: buffer float 32 fill=zero name=out
// arg: scalar float 1.5
// expect: none
__kernel void fill(__global float *out, float v) {
  out[get_global_id(0)] = v;
}
