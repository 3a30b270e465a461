// sqrt, rsqrt, cbrt and hypot (OpenCL: 3, 2, 2 and 4 ulp; compared at 4).
// kernel: roots
// global: 256   local: 64
// arg: buffer float 256 fill=random(34,0,1000) name=x
// arg: buffer float 1024 fill=zero name=out
// compare: ulp=4 out
__kernel void roots(__global const float *x, __global float *out) {
  int i = get_global_id(0);
  float v = x[i];
  out[4 * i + 0] = sqrt(v);
  out[4 * i + 1] = rsqrt(v + 1.0f);
  out[4 * i + 2] = cbrt(v - 500.0f);
  out[4 * i + 3] = hypot(v, 3.0f);
}
