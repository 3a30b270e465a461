// double -> float with each rounding mode, double -> int/long _sat, long -> double.
// requires: fp64
// kernel: dconv
// global: 64   local: 16
// arg: buffer double 64 fill=random(103,-3e9,3e9) name=x
// arg: buffer float 256 fill=zero name=f
// arg: buffer long 192 fill=zero name=l
// compare: exact f l
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void dconv(__global const double *x, __global float *f, __global long *l) {
  int i = get_global_id(0);
  double v = x[i] / 3.0;
  f[4 * i + 0] = convert_float_rte(v);
  f[4 * i + 1] = convert_float_rtz(v);
  f[4 * i + 2] = convert_float_rtp(v);
  f[4 * i + 3] = convert_float_rtn(v);
  l[3 * i + 0] = convert_int_sat_rte(v);
  l[3 * i + 1] = convert_long_rtz(v * 1e6);
  l[3 * i + 2] = as_long(convert_double((long)(v * 1e9) | 1));
}
