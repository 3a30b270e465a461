// Race-free twin of shift-undefined.cl: t is initialised, and barriers separate the read of
// the neighbour from the write of one's own element.
// kernel: shift
// global: 128   local: 64
// arg: local int 66
// arg: buffer int 128 fill=zero name=out
// expect: none
__kernel void shift(__local int *t, __global int *out) {
  size_t i = get_local_id(0);
  t[i] = (int)i;
  if (i < 2)
    t[64 + i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  int v = t[i + 1];
  barrier(CLK_LOCAL_MEM_FENCE);
  t[i] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = t[i + 2];
}
