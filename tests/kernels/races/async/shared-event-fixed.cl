// Two copies share one event: the second is given the first's (OpenCL C 6.15.10: "the
// event argument can be used to associate the async_work_group_copy with a previous async
// copy"), so waiting for it completes both before the tiles are read.
// kernel: pair
// global: 128   local: 64
// arg: buffer float 128 fill=iota name=p
// arg: buffer float 128 fill=iota name=q
// expect: none
__kernel void pair(__global float *p, __global float *q) {
  __local float tp[64], tq[64];
  size_t g = get_group_id(0), l = get_local_id(0);
  event_t e = async_work_group_copy(tp, p + 64 * g, 64, 0);
  async_work_group_copy(tq, q + 64 * g, 64, e);
  wait_group_events(1, &e);
  p[64 * g + l] = 2 * tp[l];
  q[64 * g + l] = 2 * tq[l];
}
