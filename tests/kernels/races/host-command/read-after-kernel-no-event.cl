// A kernel writes a buffer and a non-blocking read of it is enqueued on the same
// out-of-order queue without waiting for the kernel's event: the read may run before or
// while the kernel writes (OpenCL 3.0 5.11), so what the host gets is undefined.
// queue: out-of-order
// launch: produce
// global: 16   local: 16
// arg: buffer int 16 fill=zero name=b
// command: read b
// The read is the host command's: it has no source line; the report calls the buffer
// by the kernel's name for it.
// expect: data-race race=read-write memory=global scope=host-command buffer=b lines=13/?
// oclgrind: none Oclgrind runs commands one at a time and checks races only inside a launch
__kernel void produce(__global int *b) { b[get_global_id(0)] = (int)get_global_id(0) * 2; }
