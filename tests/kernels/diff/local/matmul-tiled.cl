// Tiled matrix multiply C = A * B (32x32) with 8x8 local tiles. Inputs are small
// integers stored as float so every product and partial sum is exact (fma contraction
// cannot change the result).
// kernel: matmul
// global: 32,32   local: 8,8
// arg: buffer float 1024 fill=random(73,-8,8) name=A
// arg: buffer float 1024 fill=random(74,-8,8) name=B
// arg: buffer float 1024 fill=zero name=C
// compare: exact C
__kernel void matmul(__global const float *A, __global const float *B, __global float *C) {
  __local float ta[8][8], tb[8][8];
  int lx = get_local_id(0), ly = get_local_id(1);
  int col = get_global_id(0), row = get_global_id(1);
  float acc = 0.0f;
  for (int t = 0; t < 32; t += 8) {
    ta[ly][lx] = floor(A[row * 32 + t + lx]);
    tb[ly][lx] = floor(B[(t + ly) * 32 + col]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < 8; k++)
      acc += ta[ly][k] * tb[k][lx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[row * 32 + col] = acc;
}
