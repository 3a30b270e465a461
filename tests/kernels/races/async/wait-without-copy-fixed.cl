// Race-free twin of wait-without-copy.cl: the event comes from a copy.
// kernel: stray_wait
// global: 64   local: 64
// arg: buffer int 64 fill=iota name=out
// expect: none
__kernel void stray_wait(__global int *out) {
  __local int tile[64];
  event_t e = async_work_group_copy(tile, out, 64, 0);
  wait_group_events(1, &e);
  out[get_global_id(0)] = tile[get_local_id(0)] + 1;
}
