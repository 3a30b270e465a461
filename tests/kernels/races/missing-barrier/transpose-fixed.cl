// Twin of transpose.cl with the barrier.
// kernel: transpose
// global: 16,16   local: 8,8
// arg: buffer float 256 fill=iota name=in
// arg: buffer float 256 fill=zero name=out
// expect: none
__kernel void transpose(__global const float *in, __global float *out) {
  __local float tile[8][9];
  int lx = get_local_id(0), ly = get_local_id(1);
  int gx = get_group_id(0), gy = get_group_id(1);
  tile[ly][lx] = 0.0f;                  /* cleared first: the race is the only bug */
  barrier(CLK_LOCAL_MEM_FENCE);
  tile[ly][lx] = in[(gy * 8 + ly) * 16 + gx * 8 + lx];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[(gx * 8 + ly) * 16 + gy * 8 + lx] = tile[lx][ly];
}
