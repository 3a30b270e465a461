// A global barrier only orders work-items of one group: group 1 reading what group 0
// wrote before the barrier is still a race.
// kernel: cross_groups
// global: 32   local: 16
// arg: buffer int 32 fill=iota name=buf
// arg: buffer int 32 fill=zero name=out
// expect: data-race race=read-write memory=global scope=inter-group buffer=buf
__kernel void cross_groups(__global int *buf, __global int *out) {
  int i = get_global_id(0);
  buf[i] = i * 3;
  barrier(CLK_GLOBAL_MEM_FENCE);
  out[i] = buf[(i + 16) % 32];
}
