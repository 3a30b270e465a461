// Two unordered kernels that only read the shared table: reads never race.
// queue: out-of-order
// launch: sum_a
// global: 16   local: 16
// arg: buffer int 16 fill=iota name=table
// arg: buffer int 16 fill=zero name=out_a
// launch: sum_b
// global: 16   local: 16
// arg: use table
// arg: buffer int 16 fill=zero name=out_b
// expect: none
__kernel void sum_a(__global const int *table, __global int *o) { o[get_global_id(0)] = table[get_global_id(0)] + 1; }
__kernel void sum_b(__global const int *table, __global int *o) { o[get_global_id(0)] = table[15 - get_global_id(0)] * 2; }
