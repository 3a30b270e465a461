// Only 24 of 32 scratch slots are loaded but the reduction sums all 32.
// kernel: sum24
// global: 32   local: 32
// arg: buffer int 24 fill=ones name=in
// arg: buffer int 1 fill=zero name=out
// arg: local int 32
// expect: uninitialized-read memory=local buffer=scratch
__kernel void sum24(__global const int *in, __global int *out, __local int *scratch) {
  int l = get_local_id(0);
  if (l < 24)
    scratch[l] = in[l];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 16; s > 0; s >>= 1) {
    if (l < s)
      scratch[l] += scratch[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0)
    out[0] = scratch[0];
}
