// Data-dependent while loop: Collatz step counts.
// kernel: collatz
// global: 128   local: 32
// arg: buffer uint 128 fill=iota(1) name=n
// arg: buffer uint 128 fill=zero name=steps
// compare: exact steps
__kernel void collatz(__global const uint *n, __global uint *steps) {
  int i = get_global_id(0);
  ulong x = n[i];
  uint s = 0;
  while (x != 1) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    s++;
  }
  steps[i] = s;
}
