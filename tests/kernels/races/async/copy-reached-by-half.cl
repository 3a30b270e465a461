// Only half the work-group reaches the async copy and the wait: both are collective, like
// a barrier, so this is barrier divergence. A wait reached by part of the group completes
// nothing (OpenCL C 6.15.10 leaves it undefined), so the copy is also reported as never
// waited for.
// kernel: half_copy
// global: 128   local: 64
// arg: buffer float 64 fill=iota name=src
// expect: barrier-divergence
// expect: async-copy-misuse count=2
// oclgrind: barrier-divergence Oclgrind 21.10 reports the divergence only, not the copy left unwaited
__kernel void half_copy(__global const float *src) {
  __local float tile[64];
  if (get_local_id(0) < 32) {
    event_t e = async_work_group_copy(tile, src, 64, 0);
    wait_group_events(1, &e);
  }
}
