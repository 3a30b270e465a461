// A kernel on queue 0, then the host waits for every queue (clFinish) before reading the
// result on queue 1: the read follows the kernel.
// queues: 2
// launch: produce
// global: 16   local: 16
// arg: buffer int 16 fill=zero name=b
// command: read b
// on: 1
// host-wait: finish
// expect: none
__kernel void produce(__global int *b) { b[get_global_id(0)] = (int)get_global_id(0) * 2; }
