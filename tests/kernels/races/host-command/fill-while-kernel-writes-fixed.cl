// Twin of fill-while-kernel-writes.cl: the launch waits for the fill.
// queue: out-of-order
// command: fill b
// launch: produce
// global: 16   local: 16
// arg: buffer int 16 fill=zero name=b
// after: 0
// expect: none
__kernel void produce(__global int *b) { b[get_global_id(0)] = (int)get_global_id(0) + 1; }
