// 2-D groups of 16 x 4: each work-item stores its own element and the one four rows down,
// which belongs to an item of the group below: the two groups' stores race. Each row of a
// group's lanes stores one whole block of consecutive words (one shadow record while
// nothing is found).
// kernel: spill_rows
// global: 16,8   local: 16,4
// arg: buffer int 192 fill=zero name=out
// expect: data-race race=write-write memory=global scope=inter-group buffer=out
__kernel void spill_rows(__global int *out) {
  int x = get_global_id(0), y = get_global_id(1);
  out[y * 16 + x] = x;
  out[(y + 4) * 16 + x] = y;
}
