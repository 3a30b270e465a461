// Group 0 writes data and a plain flag; group 1 polls nothing but reads both: without
// inter-group synchronisation the reads race with the writes.
// kernel: handoff
// global: 2   local: 1
// arg: buffer int 2 fill=zero name=data
// arg: buffer int 2 fill=zero name=out
// schedule-dependent: group 1 reads data[0] only if it saw the flag, so that read happens under some schedules only
// expect: data-race race=read-write memory=global scope=inter-group buffer=data
__kernel void handoff(__global int *data, __global int *out) {
  if (get_group_id(0) == 0) {
    data[0] = 42;
    data[1] = 1;
  } else {
    out[0] = data[1] ? data[0] : -1;
  }
}
