// Reduction whose loop is correct but the result is read by work-item 0 right after the
// last step without a barrier... and work-item 1 contributes in that last step.
// kernel: reduce_last
// global: 32   local: 32
// arg: buffer int 32 fill=iota name=in
// arg: buffer int 1 fill=zero name=out
// arg: local int 32
// expect: data-race race=read-write memory=local scope=intra-group buffer=scratch
__kernel void reduce_last(__global const int *in, __global int *out, __local int *scratch) {
  int l = get_local_id(0);
  scratch[l] = in[l];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 16; s > 1; s >>= 1) {
    if (l < s)
      scratch[l] += scratch[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 1)
    scratch[1] += 100;
  if (l == 0)
    out[0] = scratch[0] + scratch[1];
}
