// Race-free twin of racing-read-of-half-written-word.cl: item 0 writes the whole word before
// the barrier, item 1 its low byte after reading; no race and no undefined byte.
// kernel: half_written
// global: 64   local: 32
// arg: local int 1
// arg: buffer int 64 fill=zero name=out
// expect: none
__kernel void half_written(__local int *word, __global int *out) {
  size_t i = get_local_id(0);
  if (i == 0)
    *word = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i == 0)
    out[get_group_id(0)] = *word;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i == 1)
    *(__local char *)word = 7;
}
