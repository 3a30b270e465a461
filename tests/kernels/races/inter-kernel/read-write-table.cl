// Twin of read-read-no-event.cl where the second kernel updates the table in place.
// queue: out-of-order
// launch: sum_a
// global: 16   local: 16
// arg: buffer int 16 fill=iota name=table
// arg: buffer int 16 fill=zero name=out_a
// launch: bump
// global: 16   local: 16
// arg: use table
// twin: read-read-no-event.cl
// The read that races is no longer in the record when bump writes (bump's own read replaced
// it): the report still names sum_a's line, the only site that read the table elsewhere.
// expect: data-race race=read-write memory=global scope=inter-kernel buffer=table lines=15/16
// oclgrind: none Oclgrind executes commands one at a time and its race detector only compares accesses within one kernel launch
__kernel void sum_a(__global const int *table, __global int *o) { o[get_global_id(0)] = table[get_global_id(0)] + 1; }
__kernel void bump(__global int *table) { table[get_global_id(0)] += 1; }
