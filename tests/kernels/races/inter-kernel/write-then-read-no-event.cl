// Out-of-order queue: `produce` writes `data`, `consume` reads it, and nothing orders
// the two launches.
// queue: out-of-order
// launch: produce
// global: 64   local: 16
// arg: buffer int 64 fill=zero name=data
// launch: consume
// global: 64   local: 16
// arg: use data
// arg: buffer int 64 fill=zero name=out
// twin: write-then-read-event.cl
// expect: data-race race=read-write memory=global scope=inter-kernel buffer=data
// oclgrind: none Oclgrind executes commands one at a time and its race detector only compares accesses within one kernel launch
__kernel void produce(__global int *data) {
  int i = get_global_id(0);
  data[i] = i * i;
}
__kernel void consume(__global const int *data, __global int *out) {
  int i = get_global_id(0);
  out[i] = data[i] + 1;
}
