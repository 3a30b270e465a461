// Each slot is claimed by exactly one work-item via atomic_cmpxchg; the number of
// successful claims (not who won) is the order-independent result.
// kernel: claim
// global: 128   local: 32
// arg: buffer int 16 fill=values(-1) name=slots
// arg: buffer int 1 fill=zero name=wins
// compare: exact wins
__kernel void claim(__global int *slots, __global int *wins) {
  int i = get_global_id(0);
  if (atomic_cmpxchg(&slots[i % 16], -1, i) == -1)
    atomic_inc(wins);
}
