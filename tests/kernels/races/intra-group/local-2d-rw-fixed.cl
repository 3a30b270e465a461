// Twin of local-2d-rw.cl with the barrier between tile fill and transposed read.
// kernel: transpose_tile
// global: 8,8   local: 8,8
// arg: buffer int 64 fill=iota name=out
// arg: local int 64
// expect: none
__kernel void transpose_tile(__global int *out, __local int *tile) {
  int x = get_local_id(0), y = get_local_id(1);
  tile[y * 8 + x] = 0;                  /* cleared first: the race is the only bug */
  barrier(CLK_LOCAL_MEM_FENCE);
  tile[y * 8 + x] = out[y * 8 + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[y * 8 + x] = tile[x * 8 + y];
}
