// Race-free twin of barrier-does-not-finish-copy.cl: the group waits for the copy first.
// kernel: stage
// global: 128   local: 64
// arg: buffer float 128 fill=iota name=src
// arg: buffer float 128 fill=zero name=dst
// expect: none
__kernel void stage(__global const float *src, __global float *dst) {
  __local float tile[64];
  event_t e = async_work_group_copy(tile, src + 64 * get_group_id(0), 64, 0);
  wait_group_events(1, &e);
  dst[get_global_id(0)] = tile[get_local_id(0)];
}
