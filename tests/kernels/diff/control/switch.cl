// A dense and a sparse switch with fall-through and default.
// kernel: sw
// global: 64   local: 16
// arg: buffer int 64 fill=random(80,-3,12) name=in
// arg: buffer int 128 fill=zero name=out
// compare: exact out
__kernel void sw(__global const int *in, __global int *out) {
  int i = get_global_id(0), v = in[i], r = 0;
  switch (v) {
  case 0: r = 10; break;
  case 1: r = 11;
  case 2: r += 12; break;
  case 3: case 4: r = 34; break;
  case 7: r = -7; break;
  default: r = v * 100;
  }
  out[2 * i] = r;
  switch (v * 1000) {
  case -3000: r = 1; break;
  case 5000: r = 2; break;
  case 11000: r = 3; break;
  default: r = 0;
  }
  out[2 * i + 1] = r;
}
