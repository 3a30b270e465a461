// floor, ceil, round, trunc, rint on halves and negatives.
// kernel: rnd
// global: 64   local: 64
// arg: buffer float 64 fill=iota(-8,0.25) name=x
// arg: buffer float 320 fill=zero name=out
// compare: exact out
__kernel void rnd(__global const float *x, __global float *out) {
  int i = get_global_id(0);
  float v = x[i];
  out[5 * i + 0] = floor(v);
  out[5 * i + 1] = ceil(v);
  out[5 * i + 2] = round(v);
  out[5 * i + 3] = trunc(v);
  out[5 * i + 4] = rint(v);
}
