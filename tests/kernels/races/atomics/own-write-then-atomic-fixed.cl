// Race-free twin of own-write-then-atomic.cl: a barrier orders the write before the
// decrements.
// kernel: reset_then_count
// global: 64   local: 64
// arg: buffer int 1 fill=zero name=counter
// expect: none
__kernel void reset_then_count(__global int *counter) {
  if (get_global_id(0) == 0)
    *counter = 100;
  barrier(CLK_GLOBAL_MEM_FENCE);
  atomic_dec(counter);
}
