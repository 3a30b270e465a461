// Work-items claim slots with atomic_cmpxchg; only atomics touch `slots`.
// kernel: claim
// global: 64   local: 16
// arg: buffer int 8 fill=values(-1) name=slots
// expect: none
__kernel void claim(__global int *slots) {
  int i = get_global_id(0);
  atomic_cmpxchg(&slots[i % 8], -1, i);
}
