// The host writes new input with a non-blocking clEnqueueWriteBuffer and launches the
// kernel that reads it on an out-of-order queue without an event between them: the kernel
// may read the old bytes, the new ones, or a mix.
// queue: out-of-order
// command: write table
// launch: consume
// global: 16   local: 16
// arg: buffer int 16 fill=iota name=table
// arg: buffer int 16 fill=zero name=o
// expect: data-race race=read-write memory=global scope=host-command buffer=table lines=?/12
// oclgrind: none Oclgrind runs commands one at a time and checks races only inside a launch
__kernel void consume(__global const int *table, __global int *o) { o[get_global_id(0)] = table[get_global_id(0)] + 1; }
