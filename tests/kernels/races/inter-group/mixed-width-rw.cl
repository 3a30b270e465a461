// Group 0 reads whole ints while group 1 writes the high 16-bit halves of the same ints: a
// read-write race across work-groups on bytes 2-3 of each word. Depending on the group
// order the shadow sees whole-word accesses first (one record per word, split into byte
// records by the halves) or the halves first (byte records from the start): the finding
// must not depend on it.
// kernel: halves
// global: 32   local: 16
// arg: buffer int 16 fill=iota name=data
// arg: buffer int 32 fill=zero name=out
// expect: data-race race=read-write memory=global scope=inter-group buffer=data
__kernel void halves(__global int *data, __global int *out) {
  int i = get_global_id(0), l = get_local_id(0);
  if (get_group_id(0) == 0)
    out[i] = data[l];
  else
    ((__global short *)data)[2 * l + 1] = (short)i;
}
