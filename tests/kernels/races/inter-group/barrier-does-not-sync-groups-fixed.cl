// Twin of barrier-does-not-sync-groups.cl: the read stays inside the own group's range.
// kernel: cross_groups
// global: 32   local: 16
// arg: buffer int 32 fill=iota name=buf
// arg: buffer int 32 fill=zero name=out
// expect: none
__kernel void cross_groups(__global int *buf, __global int *out) {
  int i = get_global_id(0);
  buf[i] = i * 3;
  barrier(CLK_GLOBAL_MEM_FENCE);
  int base = get_group_id(0) * 16;
  out[i] = buf[base + (i + 1) % 16];
}
