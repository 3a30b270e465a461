// Tree reduction in local memory with the barrier missing inside the loop.
// kernel: reduce
// global: 64   local: 32
// arg: buffer float 64 fill=iota name=in
// arg: buffer float 2 fill=zero name=out
// arg: local float 32
// expect: data-race race=read-write memory=local scope=intra-group buffer=scratch
__kernel void reduce(__global const float *in, __global float *out, __local float *scratch) {
  int l = get_local_id(0);
  scratch[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 16; s > 0; s >>= 1) {
    if (l < s)
      scratch[l] += scratch[l + s];
    /* missing: barrier(CLK_LOCAL_MEM_FENCE); */
  }
  if (l == 0)
    out[get_group_id(0)] = scratch[0];
}
