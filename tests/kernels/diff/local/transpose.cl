// Tiled matrix transpose through a padded local tile.
// kernel: transpose
// global: 32,32   local: 16,16
// arg: buffer float 1024 fill=iota name=in
// arg: buffer float 1024 fill=zero name=out
// compare: exact out
__kernel void transpose(__global const float *in, __global float *out) {
  __local float tile[16][17];
  int lx = get_local_id(0), ly = get_local_id(1);
  int gx = get_group_id(0), gy = get_group_id(1);
  tile[ly][lx] = in[(gy * 16 + ly) * 32 + gx * 16 + lx];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[(gx * 16 + ly) * 32 + gy * 16 + lx] = tile[lx][ly];
}
