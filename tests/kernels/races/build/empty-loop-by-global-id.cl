// Each work-item spins an empty loop up to get_global_id(0) * 2^20 times (2^39 turns in
// all): the application's build deletes it (a device compiler knows get_global_id reads
// only the work-item's own coordinates), so the checked build must too, or the launch
// runs for hours.
// kernel: k
// global: 1024   local: 256
// arg: buffer int 1024 fill=zero name=out
// expect: none
// oclgrind: unfinished it runs the empty loop
__kernel void k(__global int *out) {
  for (size_t i = 0; i < get_global_id(0) << 20; i++) {
  }
  out[get_global_id(0)] = 1;
}
