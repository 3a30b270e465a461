// The host created `coef` CL_MEM_WRITE_ONLY and binds it to a `__constant` argument: the
// kernel reads memory it may only write.
// kernel: scale
// global: 16   local: 16
// arg: buffer float 4 fill=ones name=coef flags=write-only
// arg: buffer float 16 fill=zero name=out
// expect: invalid-access memory=constant buffer=coef
__kernel void scale(__constant float *coef, __global float *out) {
  size_t i = get_global_id(0);
  out[i] = coef[i % 4] * i;
}
