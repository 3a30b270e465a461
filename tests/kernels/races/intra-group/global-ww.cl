// Work-items of one group write their ids into the same global element (i / 2).
// kernel: pair_write
// global: 32   local: 32
// arg: buffer int 16 fill=zero name=out
// expect: data-race race=write-write memory=global scope=intra-group buffer=out
__kernel void pair_write(__global int *out) {
  int i = get_global_id(0);
  out[i / 2] = i;
}
