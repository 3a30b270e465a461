// The host maps a buffer for reading and writing and unmaps it while a kernel, unordered
// with both on an out-of-order queue, writes the buffer: what the host reads through the
// pointer, and what the kernel's bytes become after the unmap, are undefined.
// queue: out-of-order
// launch: produce
// global: 16   local: 16
// arg: buffer int 16 fill=zero name=b
// command: map-unmap b
// expect: data-race race=read-write memory=global scope=host-command buffer=b lines=11/?
// oclgrind: none Oclgrind runs commands one at a time and checks races only inside a launch
__kernel void produce(__global int *b) { b[get_global_id(0)] = (int)get_global_id(0) + 1; }
