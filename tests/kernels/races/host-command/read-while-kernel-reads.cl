// A kernel and a host read of the same table, unordered on an out-of-order queue: two
// reads never race.
// queue: out-of-order
// launch: sum
// global: 16   local: 16
// arg: buffer int 16 fill=iota name=table
// arg: buffer int 16 fill=zero name=o
// command: read table
// expect: none
__kernel void sum(__global const int *table, __global int *o) { o[get_global_id(0)] = table[get_global_id(0)] + 1; }
