// Two launches on an in-order queue sharing a buffer: the second consumes what the
// first produced.
// launch: square
// global: 64   local: 16
// arg: buffer int 64 fill=iota(-32) name=data
// launch: prefix4
// global: 16   local: 16
// arg: use data
// arg: buffer int 16 fill=zero name=sums
// compare: exact data sums
__kernel void square(__global int *data) {
  int i = get_global_id(0);
  data[i] = data[i] * data[i] - i;
}
__kernel void prefix4(__global const int *data, __global int *sums) {
  int i = get_global_id(0);
  sums[i] = data[4 * i] + data[4 * i + 1] + data[4 * i + 2] + data[4 * i + 3];
}
