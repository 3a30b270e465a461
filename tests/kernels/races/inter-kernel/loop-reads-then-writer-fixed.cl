// Twin of loop-reads-then-writer.cl on an in-order queue: the writer runs after the sums.
// queue: in-order
// launch: prefix
// global: 32   local: 32
// arg: buffer int 32 fill=iota name=table
// arg: buffer int 32 fill=zero name=out
// launch: poke
// global: 1   local: 1
// arg: use table
// expect: none
__kernel void prefix(__global const int *table, __global int *out) {
  int i = get_global_id(0), s = 0;
  for (int j = 0; j <= i; j++)
    s += table[j];
  out[i] = s;
}
__kernel void poke(__global int *table) {
  table[31] = 7;
}
