// tan, atan, atan2, asin, acos, sinh (OpenCL: 5-6 ulp; compared at 6).
// kernel: inv
// global: 128   local: 32
// arg: buffer float 128 fill=random(42,-0.99,0.99) name=x
// arg: buffer float 128 fill=random(43,-3,3) name=y
// arg: buffer float 768 fill=zero name=out
// compare: ulp=6 out
__kernel void inv(__global const float *x, __global const float *y, __global float *out) {
  int i = get_global_id(0);
  float a = x[i], b = y[i];
  __global float *p = out + 6 * i;
  p[0] = tan(b * 0.4f);
  p[1] = atan(b);
  p[2] = atan2(a, b);
  p[3] = asin(a);
  p[4] = acos(a);
  p[5] = sinh(b);
}
