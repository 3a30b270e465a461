// Ordering is transitive: `produce` and `touch` share an in-order queue, and `consume` on the
// second queue waits for `touch` only, so it also follows `produce`.
// queues: 2
// launch: produce
// global: 64   local: 16
// arg: buffer int 64 fill=zero name=data
// launch: touch
// global: 64   local: 16
// arg: buffer int 64 fill=zero name=other
// launch: consume
// on: 1
// after: 1
// global: 64   local: 16
// arg: use data
// arg: buffer int 64 fill=zero name=out
// twin: two-queues-transitive-missing.cl
// expect: none
__kernel void produce(__global int *data) { data[get_global_id(0)] = 3; }
__kernel void touch(__global int *other) { other[get_global_id(0)] = 4; }
__kernel void consume(__global const int *data, __global int *out) {
  int i = get_global_id(0);
  out[i] = data[i] + 1;
}
