// A polynomial evaluated with explicit fma and with separate * and + under
// #pragma OPENCL FP_CONTRACT OFF, so no compiler may fuse: exact on every platform.
// kernel: poly
// global: 128   local: 64
// arg: buffer float 128 fill=random(45,-2,2) name=x
// arg: buffer float 256 fill=zero name=out
// compare: exact out
#pragma OPENCL FP_CONTRACT OFF
__kernel void poly(__global const float *x, __global float *out) {
  int i = get_global_id(0);
  float v = x[i];
  float h = fma(fma(fma(0.5f, v, -1.25f), v, 3.0f), v, -0.75f);
  float s = ((0.5f * v - 1.25f) * v + 3.0f) * v - 0.75f;
  out[2 * i] = h;
  out[2 * i + 1] = s;
}
