// Twin of write-before-kernel-no-event.cl: the launch waits for the write's event.
// queue: out-of-order
// command: write table
// launch: consume
// global: 16   local: 16
// arg: buffer int 16 fill=iota name=table
// arg: buffer int 16 fill=zero name=o
// after: 0
// expect: none
__kernel void consume(__global const int *table, __global int *o) { o[get_global_id(0)] = table[get_global_id(0)] + 1; }
