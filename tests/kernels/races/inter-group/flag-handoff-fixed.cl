// Twin of flag-handoff.cl: group 1 only reads its own slot.
// kernel: handoff
// global: 2   local: 1
// arg: buffer int 2 fill=zero name=data
// arg: buffer int 2 fill=zero name=out
// expect: none
__kernel void handoff(__global int *data, __global int *out) {
  if (get_group_id(0) == 0) {
    data[0] = 42;
  } else {
    out[0] = data[1] ? 1 : -1;
  }
}
