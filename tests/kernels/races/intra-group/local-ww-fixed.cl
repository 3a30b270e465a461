// Twin of local-ww.cl: only work-item 0 writes the shared word.
// kernel: last_writer
// global: 32   local: 32
// arg: buffer int 32 fill=zero name=out
// expect: none
__kernel void last_writer(__global int *out) {
  __local int winner;
  int l = get_local_id(0);
  if (l == 0)
    winner = 31;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[l] = winner;
}
