// float2 arithmetic, component access and vector literals. FP_CONTRACT OFF: otherwise
// v * w - 1 may or may not be fused (both are conforming).
// kernel: f2
// global: 64   local: 16
// arg: buffer float 128 fill=random(50,-10,10) name=a
// arg: buffer float 384 fill=zero name=out
// compare: exact out
#pragma OPENCL FP_CONTRACT OFF
__kernel void f2(__global const float *a, __global float *out) {
  int i = get_global_id(0);
  float2 v = vload2(i, a);
  float2 w = (float2)(v.y, 2.0f);
  vstore2(v + w, 3 * i, out);
  vstore2(v * w - (float2)(1.0f), 3 * i + 1, out);
  vstore2((float2)(v.x * w.x, v.s1 - w.s0), 3 * i + 2, out);
}
