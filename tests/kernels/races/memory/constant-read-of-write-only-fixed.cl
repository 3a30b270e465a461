// Twin of constant-read-of-write-only.cl: `coef` is created CL_MEM_READ_ONLY.
// kernel: scale
// global: 16   local: 16
// arg: buffer float 4 fill=ones name=coef flags=read-only
// arg: buffer float 16 fill=zero name=out
// expect: none
__kernel void scale(__constant float *coef, __global float *out) {
  size_t i = get_global_id(0);
  out[i] = coef[i % 4] * i;
}
