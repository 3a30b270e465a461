// Race-free twin of dead-local-store.cl: one work-item stores.
// kernel: flag
// global: 128   local: 64
// arg: buffer int 128 fill=iota name=in
// expect: none
__kernel void flag(__global int *in) {
  __local int last;
  if (get_local_id(0) == 0)
    last = in[get_global_id(0)];
}
