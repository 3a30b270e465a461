// Racy twin of shared-event-fixed: the second copy is given no event, so it returns its
// own, and waiting for the first's leaves it in flight while its tile is read.
// kernel: pair
// global: 128   local: 64
// arg: buffer float 128 fill=iota name=p
// arg: buffer float 128 fill=iota name=q
// twin: shared-event-fixed.cl
// expect: async-copy-misuse count=2
// expect: data-race race=read-write memory=local scope=intra-group buffer=tq count=512
// expect: data-race race=read-write memory=global scope=intra-group buffer=q count=512
// oclgrind: none Oclgrind performs an async copy at once, when the work-group reaches it, and does not check the events a wait names
__kernel void pair(__global float *p, __global float *q) {
  __local float tp[64], tq[64];
  size_t g = get_group_id(0), l = get_local_id(0);
  event_t e = async_work_group_copy(tp, p + 64 * g, 64, 0);
  async_work_group_copy(tq, q + 64 * g, 64, 0);
  wait_group_events(1, &e);
  p[64 * g + l] = 2 * tp[l];
  q[64 * g + l] = 2 * tq[l];
}
