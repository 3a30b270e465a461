// float -> int conversions with every rounding mode and saturation, including
// out-of-range values and NaN (which saturates to 0).
// kernel: f2i
// global: 64   local: 16
// arg: buffer float 64 fill=values(0.5,1.5,2.5,-0.5,-1.5,-2.5,2.7,-2.7,1e10,-1e10,300,-300,nan,inf,-inf,70000) name=x
// arg: buffer int 640 fill=zero name=out
// compare: exact out
__kernel void f2i(__global const float *x, __global int *out) {
  int i = get_global_id(0);
  float v = x[i] * (1.0f + (i / 16) * 0.125f);
  __global int *p = out + 10 * i;
  p[0] = convert_int_sat(v);
  p[1] = convert_int_sat_rte(v);
  p[2] = convert_int_sat_rtz(v);
  p[3] = convert_int_sat_rtp(v);
  p[4] = convert_int_sat_rtn(v);
  p[5] = convert_char_sat_rte(v);
  p[6] = convert_uchar_sat(v);
  p[7] = convert_short_sat_rtn(v);
  p[8] = convert_ushort_sat_rtp(v);
  p[9] = (int)convert_uint_sat_rte(v);
}
