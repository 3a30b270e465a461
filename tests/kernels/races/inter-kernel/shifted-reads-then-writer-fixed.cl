// Twin of shifted-reads-then-writer.cl: the host also waits before the writer, which then
// follows the reads.
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
// host-wait: finish
// global: 16   local: 16
// arg: use table
// expect: none
__kernel void fill(__global int *table) { table[get_global_id(0)] = 7; }
__kernel void shift(__global const int *table, __global int *out) {
  int i = get_global_id(0);
  out[i] = table[i + 1];
}
__kernel void bump(__global int *table) {
  int i = get_global_id(0);
  table[i + 17] = i;
}
