// Work-items return early on several conditions; the others compute a result.
// kernel: early
// global: 64   local: 64
// arg: buffer int 64 fill=random(82,-50,50) name=in
// arg: buffer int 64 fill=values(-99) name=out
// compare: exact out
__kernel void early(__global const int *in, __global int *out) {
  int i = get_global_id(0), v = in[i];
  if (v < -40)
    return;
  if (v == 0) {
    out[i] = 0;
    return;
  }
  for (int k = 0; k < 10; k++) {
    if (v > 1000) {
      out[i] = k;
      return;
    }
    v *= 3;
  }
  out[i] = v;
}
