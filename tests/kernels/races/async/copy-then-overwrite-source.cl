// Issue #11 R9, racy twin: the items overwrite the copy's source before waiting for it.
// kernel: tiled
// global: 128   local: 64
// arg: buffer int 128 fill=iota name=data
// arg: local int 64
// twin: copy-then-overwrite-source-fixed.cl
// expect: data-race memory=global scope=intra-group buffer=data
__kernel void tiled(__global int *data, __local int *tile) {
  event_t e = async_work_group_copy(tile, data + 64 * get_group_id(0), 64, 0);
  size_t i = get_local_id(0);
  data[64 * get_group_id(0) + 63 - i] = -1;
  wait_group_events(1, &e);
  data[64 * get_group_id(0) + 63 - i] = tile[i];
}
