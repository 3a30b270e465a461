// Twin of two-queues-transitive.cl without the event: `consume` on the second queue may read
// `data` while `produce` writes it, even though `touch` ran in between on the first queue
// (records of `produce` must survive the next launch of its own queue).
// queues: 2
// launch: produce
// global: 64   local: 16
// arg: buffer int 64 fill=zero name=data
// launch: touch
// global: 64   local: 16
// arg: buffer int 64 fill=zero name=other
// launch: consume
// on: 1
// global: 64   local: 16
// arg: use data
// arg: buffer int 64 fill=zero name=out
// twin: two-queues-transitive.cl
// expect: data-race race=read-write memory=global scope=inter-kernel buffer=data
// oclgrind: none Oclgrind executes commands one at a time and its race detector only compares accesses within one kernel launch
__kernel void produce(__global int *data) { data[get_global_id(0)] = 3; }
__kernel void touch(__global int *other) { other[get_global_id(0)] = 4; }
__kernel void consume(__global const int *data, __global int *out) {
  int i = get_global_id(0);
  out[i] = data[i] + 1;
}
