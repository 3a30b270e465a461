// Issue #11 R9: the copy is the group's and complete for every work-item once the group has
// passed wait_group_events, so writing its source and reading its destination afterwards
// race with nothing.
// kernel: tiled
// global: 128   local: 64
// arg: buffer int 128 fill=iota name=data
// arg: local int 64
// expect: none
__kernel void tiled(__global int *data, __local int *tile) {
  event_t e = async_work_group_copy(tile, data + 64 * get_group_id(0), 64, 0);
  wait_group_events(1, &e);
  size_t i = get_local_id(0);
  data[64 * get_group_id(0) + 63 - i] = tile[i];
}
