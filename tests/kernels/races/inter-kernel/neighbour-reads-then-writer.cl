// A blur reads every element of the table three times, by three work-items, then a kernel
// unordered with it overwrites the table. The blur never writes the table, so its reads
// after the first may leave the element's record as it is (a record of a read of this launch):
// the writer must still find a read of the blur, at the blur's line.
// queue: out-of-order
// launch: blur
// global: 32   local: 16
// arg: buffer int 34 fill=iota name=table
// arg: buffer int 32 fill=zero name=out
// launch: bump
// global: 32   local: 16
// arg: use table
// expect: data-race race=read-write memory=global scope=inter-kernel buffer=table lines=17/21
// oclgrind: none Oclgrind executes commands one at a time and its race detector only compares accesses within one kernel launch
__kernel void blur(__global const int *table, __global int *out) {
  int i = get_global_id(0);
  out[i] = table[i] + table[i + 1] + table[i + 2];
}
__kernel void bump(__global int *table) {
  int i = get_global_id(0);
  table[i + 1] = i;
}
