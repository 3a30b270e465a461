// A kernel reads only its right neighbour's element, so each group's row is shifted by a
// word against the table's shadow blocks: the first group's last read lands in the second
// group's block, and the second group's reads all fall in that block too, which no read of
// the launch takes whole. Reads of memory the launch never writes that would split a block
// record are kept for the launch's end and made then: a writer unordered with the reader
// (the next command of an out-of-order queue) must still find them at the reader's line. (A
// kernel fills the table first, so that its page holds block records; the host waits for
// it.)
// queue: out-of-order
// launch: fill
// global: 1024   local: 64
// arg: buffer int 1024 none name=table
// launch: shift
// host-wait: finish
// global: 32   local: 16
// arg: use table
// arg: buffer int 32 fill=zero name=out
// launch: bump
// global: 16   local: 16
// arg: use table
// expect: data-race race=read-write memory=global scope=inter-kernel buffer=table lines=26/30
// oclgrind: none Oclgrind executes commands one at a time and its race detector only compares accesses within one kernel launch
__kernel void fill(__global int *table) { table[get_global_id(0)] = 7; }
__kernel void shift(__global const int *table, __global int *out) {
  int i = get_global_id(0);
  out[i] = table[i + 1];
}
__kernel void bump(__global int *table) {
  int i = get_global_id(0);
  table[i + 17] = i;
}
