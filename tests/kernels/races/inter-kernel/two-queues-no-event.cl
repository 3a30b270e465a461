// Two in-order queues of one context: each fills the same buffer, with no event between
// the launches, so the device may run them at the same time.
// queues: 2
// launch: fill_a
// global: 32   local: 32
// arg: buffer float 32 fill=zero name=buf
// launch: fill_b
// on: 1
// global: 32   local: 32
// arg: use buf
// twin: two-queues-event.cl
// expect: data-race race=write-write memory=global scope=inter-kernel buffer=buf
// oclgrind: none Oclgrind executes commands one at a time and its race detector only compares accesses within one kernel launch
__kernel void fill_a(__global float *buf) { buf[get_global_id(0)] = 1.0f; }
__kernel void fill_b(__global float *buf) { buf[get_global_id(0)] = 2.0f; }
