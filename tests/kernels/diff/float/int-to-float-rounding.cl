// int/long -> float conversions with _rte, _rtz, _rtp, _rtn on values that are not
// representable in 24 bits.
// kernel: i2f
// global: 64   local: 32
// arg: buffer long 64 fill=random(37) name=x
// arg: buffer float 512 fill=zero name=out
// compare: exact out
__kernel void i2f(__global const long *x, __global float *out) {
  int i = get_global_id(0);
  long v = x[i] >> (i % 40);
  int w = (int)(v >> 8);
  __global float *p = out + 8 * i;
  p[0] = convert_float(w);
  p[1] = convert_float_rte(w);
  p[2] = convert_float_rtz(w);
  p[3] = convert_float_rtp(w);
  p[4] = convert_float_rtn(w);
  p[5] = convert_float_rtz(v);
  p[6] = convert_float_rtp((ulong)v);
  p[7] = convert_float((uint)w);
}
