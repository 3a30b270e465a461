// Twin of write-then-read-no-event.cl: `consume` waits for the event of `produce`.
// queue: out-of-order
// launch: produce
// global: 64   local: 16
// arg: buffer int 64 fill=zero name=data
// launch: consume
// global: 64   local: 16
// arg: use data
// arg: buffer int 64 fill=zero name=out
// after: 0
// expect: none
__kernel void produce(__global int *data) {
  int i = get_global_id(0);
  data[i] = i * i;
}
__kernel void consume(__global const int *data, __global int *out) {
  int i = get_global_id(0);
  out[i] = data[i] + 1;
}
