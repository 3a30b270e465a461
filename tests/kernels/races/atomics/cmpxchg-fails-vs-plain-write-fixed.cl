// Race-free twin of cmpxchg-fails-vs-plain-write.cl: item 0 writes before a barrier, so the
// failed compare-exchanges (atomic reads) are ordered after it.
// kernel: probe
// global: 64   local: 64
// arg: buffer int 1 fill=values(5) name=slot
// arg: buffer int 64 fill=zero name=seen
// expect: none
__kernel void probe(__global int *slot, __global int *seen) {
  if (get_global_id(0) == 0)
    *slot = 9;
  barrier(CLK_GLOBAL_MEM_FENCE);
  seen[get_global_id(0)] = atomic_cmpxchg(slot, -2, 0);
}
