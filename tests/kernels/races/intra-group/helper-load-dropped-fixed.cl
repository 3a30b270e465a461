// Race-free twin of helper-load-dropped.cl: p is initialised and barriers order the helper's
// read before the neighbour's write.
// kernel: poke
// global: 128   local: 64
// arg: local int 65
// expect: none
int peek(__local int *p) { return p[get_local_id(0)]; }

__kernel void poke(__local int *p) {
  p[get_local_id(0)] = 0;
  if (get_local_id(0) == 0)
    p[64] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  peek(p);
  barrier(CLK_LOCAL_MEM_FENCE);
  p[get_local_id(0) + 1] = 1;
}
