// Nested loops with break, continue and data-dependent bounds.
// kernel: nest
// global: 32   local: 32
// arg: buffer int 32 fill=random(81,1,20) name=n
// arg: buffer int 32 fill=zero name=out
// compare: exact out
__kernel void nest(__global const int *n, __global int *out) {
  int i = get_global_id(0), acc = 0;
  for (int a = 0; a < n[i]; a++) {
    if (a % 3 == 1) continue;
    for (int b = a; b < 2 * n[i]; b++) {
      if (b * a > 150) break;
      acc += (a ^ b) + 1;
    }
  }
  out[i] = acc;
}
