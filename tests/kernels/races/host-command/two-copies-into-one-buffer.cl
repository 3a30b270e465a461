// Two host commands on an out-of-order queue with no event between them both write `dst`
// (a copy from `a`, then a fill): which bytes end up there is undefined. No kernel takes part;
// the report calls the buffer by the second command's parameter.
// queue: out-of-order
// launch: touch_other
// global: 4   local: 4
// arg: buffer int 4 fill=zero name=other
// arg: buffer int 16 fill=iota name=a
// arg: buffer int 16 fill=zero name=dst
// command: copy a dst
// command: fill dst
// expect: data-race race=write-write memory=global scope=host-command buffer=buffer lines=?/?
// oclgrind: none Oclgrind runs commands one at a time and checks races only inside a launch
__kernel void touch_other(__global int *other, __global const int *a, __global int *dst) {
  other[get_global_id(0)] = 1;
}
