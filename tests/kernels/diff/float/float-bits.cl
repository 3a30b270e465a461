// as_int / as_float reinterpretation and nextafter on boundary values.
// kernel: fbits
// global: 16   local: 16
// arg: buffer float 16 fill=values(1,-1,0,-0,1e-30,3.4e38,0.1,-2.5,65504,1e-5,7,9,-7,-9,0.75,1.5) name=x
// arg: buffer int 48 fill=zero name=out
// compare: exact out
__kernel void fbits(__global const float *x, __global int *out) {
  int i = get_global_id(0);
  float v = x[i];
  out[3 * i] = as_int(v);
  out[3 * i + 1] = as_int(nextafter(v, INFINITY));
  out[3 * i + 2] = as_int(as_float(as_int(v) ^ 0x80000000));
}
