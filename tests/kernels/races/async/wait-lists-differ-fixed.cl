// Twin of wait-lists-differ: every work-item waits for both copies (the odd ones name them
// in the other order: the same events).
// kernel: split_wait
// global: 128   local: 64
// arg: buffer float 128 fill=iota name=p
// arg: buffer float 128 fill=iota name=q
// expect: none
// oclgrind: barrier-divergence Oclgrind takes the same events named in another order for different events
__kernel void split_wait(__global float *p, __global const float *q) {
  __local float tp[64], tq[64];
  size_t g = get_group_id(0), l = get_local_id(0);
  event_t e[2], r[2];
  e[0] = r[1] = async_work_group_copy(tp, p + 64 * g, 64, 0);
  e[1] = r[0] = async_work_group_copy(tq, q + 64 * g, 64, 0);
  wait_group_events(2, l % 2 ? r : e);
  barrier(CLK_LOCAL_MEM_FENCE);
  p[64 * g + l] = tp[l] + tq[l];
}
