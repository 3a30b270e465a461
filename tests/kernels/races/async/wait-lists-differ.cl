// The work-items of a group wait for different copies: items 0-13 name the copy into tp,
// the others the copy into tq. wait_group_events must be reached by every work-item with
// the same events (OpenCL C 6.15.10: otherwise the results are undefined). Reported once
// per group, at the wait. Which copies such a wait completes is undefined too, so neither
// is taken as waited for: each is reported never waited for, and the accesses after the
// wait race with the copies still pending (the tiles they write, the buffer p they read).
// kernel: split_wait
// global: 128   local: 64
// arg: buffer float 128 fill=iota name=p
// arg: buffer float 128 fill=iota name=q
// twin: wait-lists-differ-fixed.cl
// expect: barrier-divergence count=2
// expect: async-copy-misuse count=2
// expect: async-copy-misuse count=2
// expect: data-race race=read-write scope=intra-group memory=local buffer=tp
// expect: data-race race=read-write scope=intra-group memory=local buffer=tq
// expect: data-race race=read-write scope=intra-group memory=global buffer=p
// oclgrind: barrier-divergence Oclgrind 21.10 reports the divergence only, not the copies left unwaited nor the accesses racing with them
__kernel void split_wait(__global float *p, __global const float *q) {
  __local float tp[64], tq[64];
  size_t g = get_group_id(0), l = get_local_id(0);
  event_t ep = async_work_group_copy(tp, p + 64 * g, 64, 0);
  event_t eq = async_work_group_copy(tq, q + 64 * g, 64, 0);
  event_t *mine = l > 13 ? &eq : &ep;
  wait_group_events(1, mine);
  barrier(CLK_LOCAL_MEM_FENCE);
  p[64 * g + l] = tp[l] + tq[l];
}
