// Issue #11 R6: only half the work-group reaches the async copy and the wait: both are
// collective, like a barrier, so this is barrier divergence.
// kernel: half_copy
// global: 128   local: 64
// arg: buffer float 64 fill=iota name=src
// expect: barrier-divergence
__kernel void half_copy(__global const float *src) {
  __local float tile[64];
  if (get_local_id(0) < 32) {
    event_t e = async_work_group_copy(tile, src, 64, 0);
    wait_group_events(1, &e);
  }
}
