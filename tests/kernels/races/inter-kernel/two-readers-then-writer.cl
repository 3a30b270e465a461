// Two unordered kernels read the table, then a third, unordered with both, updates it in
// place. When the writer runs, its own read has replaced the readers in each record, which
// keep only "read by another launch": the report cannot tell which reader raced, so the first
// access has no line and the report lists both readers' sites as candidates.
// queue: out-of-order
// launch: sum_a
// global: 16   local: 16
// arg: buffer int 16 fill=iota name=table
// arg: buffer int 16 fill=zero name=out_a
// launch: sum_b
// global: 16   local: 16
// arg: use table
// arg: buffer int 16 fill=zero name=out_b
// launch: bump
// global: 16   local: 16
// arg: use table
// twin: read-read-no-event.cl
// expect: data-race race=read-write memory=global scope=inter-kernel buffer=table lines=?/22
// oclgrind: none Oclgrind executes commands one at a time and its race detector only compares accesses within one kernel launch
__kernel void sum_a(__global const int *table, __global int *o) { o[get_global_id(0)] = table[get_global_id(0)] + 1; }
__kernel void sum_b(__global const int *table, __global int *o) { o[get_global_id(0)] = table[15 - get_global_id(0)] * 2; }
__kernel void bump(__global int *table) { table[get_global_id(0)] += 1; }
