// Each work-item sums the table up to its own index (a loop whose trip count differs between
// work-items: the group leaves lockstep), then a kernel unordered with it overwrites the one
// element only the last work-item reads, at its last iteration. Reads of a table no
// work-item writes that find it already read in this launch need not be checked one by one;
// the last element is read once: the writer must still find that read, at its line.
// queue: out-of-order
// launch: prefix
// global: 32   local: 32
// arg: buffer int 32 fill=iota name=table
// arg: buffer int 32 fill=zero name=out
// launch: poke
// global: 1   local: 1
// arg: use table
// expect: data-race race=read-write memory=global scope=inter-kernel buffer=table lines=19/23
// oclgrind: none Oclgrind executes commands one at a time and its race detector only compares accesses within one kernel launch
__kernel void prefix(__global const int *table, __global int *out) {
  int i = get_global_id(0), s = 0;
  for (int j = 0; j <= i; j++)
    s += table[j];
  out[i] = s;
}
__kernel void poke(__global int *table) {
  table[31] = 7;
}
