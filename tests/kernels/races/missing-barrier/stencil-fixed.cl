// Twin of stencil.cl with the barrier after the tile load.
// kernel: blur
// global: 64   local: 16
// arg: buffer float 64 fill=random(1) name=in
// arg: buffer float 64 fill=zero name=out
// arg: local float 18
// expect: none
__kernel void blur(__global const float *in, __global float *out, __local float *tile) {
  int g = get_global_id(0), l = get_local_id(0), n = get_global_size(0);
  tile[l] = 0.0f;                       /* clear the tile first so no read */
  if (l < 2) tile[16 + l] = 0.0f;       /* sees never-written memory       */
  barrier(CLK_LOCAL_MEM_FENCE);
  tile[l + 1] = in[g];
  if (l == 0) tile[0] = in[(g + n - 1) % n];
  if (l == 15) tile[17] = in[(g + 1) % n];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[g] = (tile[l] + tile[l + 1] + tile[l + 2]) / 3.0f;
}
