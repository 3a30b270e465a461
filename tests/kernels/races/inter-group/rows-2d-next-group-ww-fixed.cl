// Twin of rows-2d-next-group-ww.cl: the second store goes eight rows down, below every
// group's first store.
// kernel: spill_rows
// global: 16,8   local: 16,4
// arg: buffer int 256 fill=zero name=out
// expect: none
__kernel void spill_rows(__global int *out) {
  int x = get_global_id(0), y = get_global_id(1);
  out[y * 16 + x] = x;
  out[(y + 8) * 16 + x] = y;
}
