// Waiting on an event no async copy returned (a zero-initialised event_t).
// kernel: stray_wait
// global: 64   local: 64
// arg: buffer int 64 fill=iota name=out
// expect: async-copy-misuse
// oclgrind: none Oclgrind does not check the events a wait names
__kernel void stray_wait(__global int *out) {
  event_t e = 0;
  wait_group_events(1, &e);
  out[get_global_id(0)] += 1;
}
