// Classification of inf, nan, zero and denormal-free values: isnan, isinf, isfinite,
// signbit, isequal, isless, isunordered, plus arithmetic on infinities.
// kernel: special
// global: 8   local: 8
// arg: buffer float 8 fill=values(inf,-inf,nan,0,-0,1,-1,3.5e38) name=x
// arg: buffer int 64 fill=zero name=flags
// arg: buffer float 16 fill=zero name=vals
// compare: exact flags
// compare: ulp=0 vals
__kernel void special(__global const float *x, __global int *flags, __global float *vals) {
  int i = get_global_id(0);
  float v = x[i], w = x[(i + 1) % 8];
  __global int *p = flags + 8 * i;
  p[0] = isnan(v);
  p[1] = isinf(v);
  p[2] = isfinite(v);
  p[3] = signbit(v);
  p[4] = isequal(v, w);
  p[5] = isless(v, w);
  p[6] = isunordered(v, w);
  p[7] = isnormal(v);
  vals[2 * i] = v * 2.0f;
  vals[2 * i + 1] = v - w;
}
