// convert_float4(int4), convert_int4_sat_rtz(float4), convert_uchar4_sat(int4) and
// as_uint4(float4) reinterpretation.
// kernel: cv
// global: 16   local: 16
// arg: buffer float 64 fill=random(56,-400,400) name=f
// arg: buffer int 256 fill=zero name=out
// compare: exact out
__kernel void cv(__global const float *f, __global int *out) {
  int i = get_global_id(0);
  float4 v = vload4(i, f);
  int4 a = convert_int4_sat_rtz(v);
  int4 b = convert_int4_rte(v);
  uchar4 c = convert_uchar4_sat(a);
  vstore4(a, 4 * i, out);
  vstore4(b - a, 4 * i + 1, out);
  vstore4(convert_int4(c), 4 * i + 2, out);
  vstore4(as_int4(convert_float4(a) * 0.5f), 4 * i + 3, out);
}
