// Race-free twin of copy-reached-by-half.cl: every work-item reaches the copy and the wait.
// kernel: half_copy
// global: 128   local: 64
// arg: buffer float 64 fill=iota name=src
// arg: buffer float 128 fill=zero name=out
// expect: none
__kernel void half_copy(__global const float *src, __global float *out) {
  __local float tile[64];
  event_t e = async_work_group_copy(tile, src, 64, 0);
  wait_group_events(1, &e);
  out[get_global_id(0)] = tile[get_local_id(0)];
}
