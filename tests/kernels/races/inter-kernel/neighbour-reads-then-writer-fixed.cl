// Twin of neighbour-reads-then-writer.cl on an in-order queue: the writer runs after the blur.
// queue: in-order
// launch: blur
// global: 32   local: 16
// arg: buffer int 34 fill=iota name=table
// arg: buffer int 32 fill=zero name=out
// launch: bump
// global: 32   local: 16
// arg: use table
// expect: none
__kernel void blur(__global const int *table, __global int *out) {
  int i = get_global_id(0);
  out[i] = table[i] + table[i + 1] + table[i + 2];
}
__kernel void bump(__global int *table) {
  int i = get_global_id(0);
  table[i + 1] = i;
}
