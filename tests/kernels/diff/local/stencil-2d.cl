// 2-D 5-point stencil with a one-cell halo loaded into local memory (clamped edges).
// kernel: stencil
// global: 16,16   local: 8,8
// arg: buffer int 256 fill=random(76,0,100) name=in
// arg: buffer int 256 fill=zero name=out
// compare: exact out
__kernel void stencil(__global const int *in, __global int *out) {
  __local int t[10][10];
  int lx = get_local_id(0), ly = get_local_id(1);
  int gx = get_global_id(0), gy = get_global_id(1);
  for (int y = ly; y < 10; y += 8)
    for (int x = lx; x < 10; x += 8) {
      int sx = clamp((int)get_group_id(0) * 8 + x - 1, 0, 15);
      int sy = clamp((int)get_group_id(1) * 8 + y - 1, 0, 15);
      t[y][x] = in[sy * 16 + sx];
    }
  barrier(CLK_LOCAL_MEM_FENCE);
  out[gy * 16 + gx] = 4 * t[ly + 1][lx + 1] - t[ly][lx + 1] - t[ly + 2][lx + 1] - t[ly + 1][lx] - t[ly + 1][lx + 2];
}
