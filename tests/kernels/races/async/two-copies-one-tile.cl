// Two copies in flight at once write the same tile: the group waits for both together, so
// neither is complete before the other starts and the tile ends up holding either.
// kernel: both
// global: 128   local: 64
// arg: buffer float 128 fill=iota name=p
// arg: buffer float 128 fill=iota name=q
// arg: buffer float 128 fill=zero name=out
// twin: two-copies-one-tile-fixed.cl
// expect: data-race race=write-write memory=local scope=intra-group buffer=tile count=128
// oclgrind: none Oclgrind performs an async copy at once, when the work-group reaches it
__kernel void both(__global const float *p, __global const float *q, __global float *out) {
  __local float tile[64];
  size_t g = get_group_id(0), l = get_local_id(0);
  event_t e[2];
  e[0] = async_work_group_copy(tile, p + 64 * g, 64, 0);
  e[1] = async_work_group_copy(tile, q + 64 * g, 64, 0);
  wait_group_events(2, e);
  out[64 * g + l] = tile[l];
}
