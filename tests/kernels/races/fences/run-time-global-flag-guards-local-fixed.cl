// Race-free twin of run-time-global-flag-guards-local.cl: the run-time flags name local
// memory.
// kernel: shift
// global: 128   local: 64
// arg: local int 64
// arg: buffer int 128 fill=zero name=out
// arg: scalar int 1
// expect: none
__kernel void shift(__local int *tmp, __global int *out, int flags) {
  size_t l = get_local_id(0);
  tmp[l] = (int)l;
  barrier(flags);
  out[get_global_id(0)] = tmp[(l + 1) % 64];
}
