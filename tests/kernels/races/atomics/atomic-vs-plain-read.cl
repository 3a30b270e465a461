// Work-items atomically add while work-item 5 reads the total with a plain load.
// kernel: peek
// global: 32   local: 32
// arg: buffer int 1 fill=zero name=total
// arg: buffer int 1 fill=zero name=out
// expect: data-race race=atomic-plain memory=global scope=intra-group buffer=total
__kernel void peek(__global int *total, __global int *out) {
  int i = get_global_id(0);
  atomic_add(total, i);
  if (i == 5)
    out[0] = *total;
}
