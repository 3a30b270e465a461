// frexp, ldexp, ilogb, logb, fract, modf are exact.
// kernel: parts
// global: 64   local: 16
// arg: buffer float 64 fill=random(44,-1000,1000) name=x
// arg: buffer float 320 fill=zero name=out
// arg: buffer int 128 fill=zero name=exps
// compare: exact out exps
__kernel void parts(__global const float *x, __global float *out, __global int *exps) {
  int i = get_global_id(0);
  float v = x[i], whole, fl;
  int e;
  out[5 * i + 0] = frexp(v, &e);
  exps[2 * i] = e;
  exps[2 * i + 1] = ilogb(v);
  out[5 * i + 1] = ldexp(v, (i % 20) - 10);
  out[5 * i + 2] = logb(v);
  out[5 * i + 3] = fract(v, &fl) + fl * 0.0f;
  out[5 * i + 4] = modf(v, &whole) + whole;
}
