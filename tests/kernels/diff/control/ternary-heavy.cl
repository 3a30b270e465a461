// Deep ?: chains and short-circuit && / || with side effects on private state.
// kernel: tern
// global: 64   local: 32
// arg: buffer int 64 fill=random(85,-20,20) name=a
// arg: buffer int 128 fill=zero name=out
// compare: exact out
__kernel void tern(__global const int *a, __global int *out) {
  int i = get_global_id(0), x = a[i], y = a[63 - i], calls = 0;
  int r = x > y ? (x > 0 ? x - y : y - x) : (y > 10 ? y : x < -10 ? -x : 0);
  if ((x > 0 && ++calls > 0 && y < 0) || (++calls > 1 && x == y))
    r += 1000;
  out[2 * i] = r;
  out[2 * i + 1] = calls;
}
