// Race-free twin of run-time-flags-differ.cl: p is initialised and every item's run-time
// flags name local memory.
// kernel: var_fence
// global: 128   local: 64
// arg: local int 1
// arg: buffer int 128 fill=zero name=out
// expect: none
__kernel void var_fence(__local int *p, __global int *out) {
  int flags = get_local_id(0) < 1000 ? CLK_LOCAL_MEM_FENCE : CLK_GLOBAL_MEM_FENCE;
  if (get_local_id(0) == 0)
    p[0] = 7;
  barrier(CLK_LOCAL_MEM_FENCE);
  int v = p[0];
  barrier(flags);
  if (get_local_id(0) == 1)
    p[0] = v + 1;
  out[get_global_id(0)] = v;
}
