// double sqrt (correctly rounded), exp, log, sin, cos (OpenCL: 3-4 ulp; compared at 4).
// requires: fp64
// kernel: dmath
// global: 64   local: 16
// arg: buffer double 64 fill=random(102,0.01,20) name=x
// arg: buffer double 64 fill=zero name=roots
// arg: buffer double 256 fill=zero name=out
// compare: exact roots
// compare: ulp=4 out
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void dmath(__global const double *x, __global double *roots, __global double *out) {
  int i = get_global_id(0);
  double v = x[i];
  roots[i] = sqrt(v);
  out[4 * i + 0] = exp(v);
  out[4 * i + 1] = log(v);
  out[4 * i + 2] = sin(v);
  out[4 * i + 3] = cos(v);
}
