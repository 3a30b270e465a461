// double +, -, *, / (correctly rounded for double in OpenCL) and fma.
// requires: fp64
// kernel: darith
// global: 64   local: 16
// arg: buffer double 64 fill=random(100,-1000,1000) name=a
// arg: buffer double 64 fill=random(101,0.001,100) name=b
// arg: buffer double 320 fill=zero name=out
// compare: exact out
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void darith(__global const double *a, __global const double *b, __global double *out) {
  int i = get_global_id(0);
  double x = a[i], y = b[i];
  out[5 * i + 0] = x + y;
  out[5 * i + 1] = x - y;
  out[5 * i + 2] = x * y;
  out[5 * i + 3] = x / y;
  out[5 * i + 4] = fma(x, y, -x);
}
