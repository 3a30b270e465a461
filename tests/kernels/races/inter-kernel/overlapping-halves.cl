// Twin of disjoint-halves.cl where the second kernel's range overlaps the first by 4.
// queue: out-of-order
// launch: low
// global: 16   local: 16
// arg: buffer int 32 fill=zero name=buf
// launch: high
// global: 16   local: 16
// arg: use buf
// twin: disjoint-halves.cl
// expect: data-race race=write-write memory=global scope=inter-kernel buffer=buf
// oclgrind: none Oclgrind executes commands one at a time and its race detector only compares accesses within one kernel launch
__kernel void low(__global int *buf) { buf[get_global_id(0)] = 1; }
__kernel void high(__global int *buf) { buf[12 + get_global_id(0)] = 2; }
