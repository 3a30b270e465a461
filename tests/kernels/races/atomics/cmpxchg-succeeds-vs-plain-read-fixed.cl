// Race-free twin of cmpxchg-succeeds-vs-plain-read.cl: the slot holds 5, so every
// compare-exchange fails and only reads, like the plain reads beside it (issue #11 item 6).
// kernel: probe
// global: 64   local: 64
// arg: buffer int 1 fill=values(5) name=slot
// arg: buffer int 64 fill=zero name=seen
// expect: none
__kernel void probe(__global int *slot, __global int *seen) {
  int old = atomic_cmpxchg(slot, -1, (int)get_global_id(0));
  seen[get_global_id(0)] = old + *slot;
}
