// exp, exp2, log, log2, log10 (OpenCL: 3 ulp; compared at 4).
// kernel: el
// global: 256   local: 64
// arg: buffer float 256 fill=random(31,0.001,40) name=x
// arg: buffer float 1280 fill=zero name=out
// compare: ulp=4 out
__kernel void el(__global const float *x, __global float *out) {
  int i = get_global_id(0);
  float v = x[i];
  out[5 * i + 0] = exp(v - 20.0f);
  out[5 * i + 1] = exp2(v - 20.0f);
  out[5 * i + 2] = log(v);
  out[5 * i + 3] = log2(v);
  out[5 * i + 4] = log10(v);
}
