// Tree reduction of ints in local memory, one partial sum per group.
// kernel: reduce
// global: 1024   local: 128
// arg: buffer int 1024 fill=random(70,-500,500) name=in
// arg: buffer int 8 fill=zero name=out
// arg: local int 128
// compare: exact out
__kernel void reduce(__global const int *in, __global int *out, __local int *s) {
  int l = get_local_id(0);
  s[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = get_local_size(0) / 2; k > 0; k >>= 1) {
    if (l < k)
      s[l] += s[l + k];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0)
    out[get_group_id(0)] = s[0];
}
