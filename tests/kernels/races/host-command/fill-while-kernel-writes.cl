// The host clears an output buffer with clEnqueueFillBuffer while a kernel, unordered
// with it on an out-of-order queue, writes its results there: write-write.
// queue: out-of-order
// launch: produce
// global: 16   local: 16
// arg: buffer int 16 fill=zero name=b
// command: fill b
// expect: data-race race=write-write memory=global scope=host-command buffer=b lines=10/?
// oclgrind: none Oclgrind runs commands one at a time and checks races only inside a launch
__kernel void produce(__global int *b) { b[get_global_id(0)] = (int)get_global_id(0) + 1; }
