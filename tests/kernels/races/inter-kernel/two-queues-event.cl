// Twin of two-queues-no-event.cl: the launch on the second queue waits for the first's event.
// queues: 2
// launch: fill_a
// global: 32   local: 32
// arg: buffer float 32 fill=zero name=buf
// launch: fill_b
// on: 1
// global: 32   local: 32
// arg: use buf
// after: 0
// expect: none
__kernel void fill_a(__global float *buf) { buf[get_global_id(0)] = 1.0f; }
__kernel void fill_b(__global float *buf) { buf[get_global_id(0)] = 2.0f; }
