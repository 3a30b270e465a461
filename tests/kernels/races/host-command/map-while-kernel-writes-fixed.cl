// Twin of map-while-kernel-writes.cl: the map waits for the kernel's event.
// queue: out-of-order
// launch: produce
// global: 16   local: 16
// arg: buffer int 16 fill=zero name=b
// command: map-unmap b
// after: 0
// expect: none
__kernel void produce(__global int *b) { b[get_global_id(0)] = (int)get_global_id(0) + 1; }
