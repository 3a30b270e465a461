// Out-of-order queue, no events, but the two kernels write disjoint halves: no race.
// queue: out-of-order
// launch: low
// global: 16   local: 16
// arg: buffer int 32 fill=zero name=buf
// launch: high
// global: 16   local: 16
// arg: use buf
// expect: none
__kernel void low(__global int *buf) { buf[get_global_id(0)] = 1; }
__kernel void high(__global int *buf) { buf[16 + get_global_id(0)] = 2; }
