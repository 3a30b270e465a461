// Like two-queues-no-event.cl, but the second queue is busy (a spinning kernel) when the host
// finishes the first queue, so fill_b starts only after the host has waited for fill_a. It was
// enqueued before that wait: nothing orders the two fills, the race stands. (A launch that let
// go of its enqueue-time clock before it started had fill_a forgotten here.)
// queues: 2
// launch: fill_a
// global: 32   local: 32
// arg: buffer float 32 fill=zero name=buf
// launch: spin
// on: 1
// global: 1   local: 1
// arg: buffer uint 1 fill=values(400000) name=state
// launch: fill_b
// on: 1
// global: 32   local: 32
// arg: use buf
// twin: two-queues-host-wait.cl
// expect: data-race race=write-write memory=global scope=inter-kernel buffer=buf
// oclgrind: none Oclgrind executes commands one at a time and its race detector only compares accesses within one kernel launch
__kernel void fill_a(__global float *buf) { buf[get_global_id(0)] = 1.0f; }
__kernel void spin(__global uint *state) {
  uint x = 1;
  for (uint i = 0; i < state[0]; i++)
    x = x * 1664525u + 1013904223u;
  state[0] = x;
}
__kernel void fill_b(__global float *buf) { buf[get_global_id(0)] = 2.0f; }
