// Twin of next-group-words-ww.cl: the second store goes to a half of the buffer no group's
// first store reaches.
// kernel: spill
// global: 128   local: 32
// arg: buffer int 288 fill=zero name=out
// expect: none
__kernel void spill(__global int *out) {
  int i = get_global_id(0);
  out[i] = i;
  out[i + 160] = -i;
}
