// Twin of two-copies-one-tile without the race: the group waits for the first copy before
// the second overwrites the tile (the first copy's values are used in between).
// kernel: both
// global: 128   local: 64
// arg: buffer float 128 fill=iota name=p
// arg: buffer float 128 fill=iota name=q
// arg: buffer float 128 fill=zero name=out
// expect: none
__kernel void both(__global const float *p, __global const float *q, __global float *out) {
  __local float tile[64];
  size_t g = get_group_id(0), l = get_local_id(0);
  event_t e = async_work_group_copy(tile, p + 64 * g, 64, 0);
  wait_group_events(1, &e);
  float first = tile[l];
  barrier(CLK_LOCAL_MEM_FENCE);
  e = async_work_group_copy(tile, q + 64 * g, 64, 0);
  wait_group_events(1, &e);
  out[64 * g + l] = first + tile[l];
}
