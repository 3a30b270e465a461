// The twin of wait-reached-by-half.cl: every work-item waits for the copy, then reads the
// tile.
// kernel: half_wait
// global: 128   local: 64
// arg: buffer float 128 fill=iota name=src
// arg: buffer float 128 fill=zero name=dst
// twin: wait-reached-by-half.cl
// expect: none
__kernel void half_wait(__global const float *src, __global float *dst) {
  __local float tile[64];
  size_t g = get_group_id(0), l = get_local_id(0);
  event_t e = async_work_group_copy(tile, src + 64 * g, 64, 0);
  wait_group_events(1, &e);
  dst[64 * g + l] = tile[l];
}
