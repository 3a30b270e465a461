// Every work-item reaches the copy, only half the wait: the wait is collective, so this is
// barrier divergence, and a wait reached by part of the group completes nothing (OpenCL C
// 6.15.10 leaves it undefined): the copy is also reported as never waited for.
// kernel: half_wait
// global: 128   local: 64
// arg: buffer float 128 fill=iota name=src
// arg: buffer float 128 fill=zero name=dst
// twin: wait-reached-by-half-fixed.cl
// expect: barrier-divergence
// expect: async-copy-misuse count=2
// oclgrind: barrier-divergence Oclgrind 21.10 reports the divergence only, not the copy left unwaited
__kernel void half_wait(__global const float *src, __global float *dst) {
  __local float tile[64];
  size_t g = get_group_id(0), l = get_local_id(0);
  event_t e = async_work_group_copy(tile, src + 64 * g, 64, 0);
  if (l < 32)
    wait_group_events(1, &e);
  dst[64 * g + l] = 1.0f;
}
