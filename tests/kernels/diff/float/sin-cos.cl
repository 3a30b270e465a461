// sin, cos, sincos over [-10, 10] (OpenCL: 4 ulp).
// kernel: trig
// global: 256   local: 64
// arg: buffer float 256 fill=random(30,-10,10) name=x
// arg: buffer float 1024 fill=zero name=out
// compare: ulp=4 out
__kernel void trig(__global const float *x, __global float *out) {
  int i = get_global_id(0);
  float c;
  out[4 * i + 0] = sin(x[i]);
  out[4 * i + 1] = cos(x[i]);
  out[4 * i + 2] = sincos(x[i] * 0.5f, &c);
  out[4 * i + 3] = c;
}
