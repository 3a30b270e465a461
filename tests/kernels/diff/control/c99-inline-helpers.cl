// Plain C99 `inline` helpers (no `static`, as Rodinia's cfd and hybridsort write them): an
// inline definition provides no external one, so the build must keep their bodies for the
// calls it does not inline (the large one, called from a loop).
// kernel: k
// global: 64   local: 16
// arg: buffer float 64 fill=iota name=in
// arg: buffer float 64 fill=zero name=out
// compare: exact out
inline float twice(float x) { return 2.0f * x; }

inline float mix4(float a, float b, int n) {
  float s = 0.0f;
  for (int k = 0; k < n; k++) {
    s = s * 0.5f + a * (k + 1) - b / (k + 2);
    if (s > 1000.0f) s -= 999.0f;
    s += twice(a) * (k & 3) - (float)(k % 5);
  }
  return s;
}

__kernel void k(__global const float *in, __global float *out) {
  int i = get_global_id(0);
  float acc = 0.0f;
  for (int j = 0; j < 4; j++) acc += mix4(in[(i + j) % 64], twice(in[i]), 8 + j);
  out[i] = acc;
}
