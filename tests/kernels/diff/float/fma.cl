// fma is correctly rounded: exact, including values where a*b+c cancels.
// kernel: fused
// global: 128   local: 32
// arg: buffer float 128 fill=random(35) name=a
// arg: buffer float 128 fill=random(36) name=b
// arg: buffer float 256 fill=zero name=out
// compare: exact out
__kernel void fused(__global const float *a, __global const float *b, __global float *out) {
  int i = get_global_id(0);
  float x = a[i], y = b[i];
  out[2 * i + 0] = fma(x, y, 0.25f);
  out[2 * i + 1] = fma(x, y, -(x * y));
}
