// Twin of two-copies-into-one-buffer.cl: the fill waits for the copy's event.
// queue: out-of-order
// launch: touch_other
// global: 4   local: 4
// arg: buffer int 4 fill=zero name=other
// arg: buffer int 16 fill=iota name=a
// arg: buffer int 16 fill=zero name=dst
// command: copy a dst
// command: fill dst
// after: 1
// expect: none
__kernel void touch_other(__global int *other, __global const int *a, __global int *dst) {
  other[get_global_id(0)] = 1;
}
