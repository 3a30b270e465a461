// double2 / double4 arithmetic, swizzles and vload/vstore. FP_CONTRACT OFF: otherwise
// a*b+c may or may not be fused (both are conforming) and the last bit differs.
// requires: fp64
// kernel: dvec
// global: 16   local: 16
// arg: buffer double 64 fill=random(104,-5,5) name=a
// arg: buffer double 96 fill=zero name=out
// compare: exact out
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
__kernel void dvec(__global const double *a, __global double *out) {
  int i = get_global_id(0);
  double4 v = vload4(i, a);
  double2 s = v.lo * v.hi + v.wz;
  vstore2(s, 0, out + 6 * i);
  vstore4(v.yxwz - (double4)(s, s.yx), 0, out + 6 * i + 2);
}
