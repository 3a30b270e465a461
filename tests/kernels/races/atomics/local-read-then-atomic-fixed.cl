// Race-free twin of local-read-then-atomic.cl: a barrier orders the reads before the
// increments.
// kernel: count
// global: 128   local: 64
// arg: local int 64
// arg: buffer int 128 fill=zero name=seen
// expect: none
__kernel void count(__local int *hist, __global int *seen) {
  hist[get_local_id(0)] = 5;
  barrier(CLK_LOCAL_MEM_FENCE);
  seen[get_global_id(0)] = hist[get_local_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(hist);
}
