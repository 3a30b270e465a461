// Twin of reduction-step-same-value.cl where in[48..63] are 5: items 16..31 change
// s[16..31] while items 0..15 read them.
// kernel: sum
// global: 64   local: 64
// arg: buffer int 64 fill=values(3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5) name=in
// arg: buffer int 1 fill=zero name=out
// checks: races,benign
// twin: reduction-step-fixed.cl
// expect: data-race race=read-write memory=local scope=intra-group buffer=s
__kernel void sum(__global const int *in, __global int *out) {
  __local int s[64];
  int l = get_local_id(0);
  s[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < 32) s[l] += s[l + 32];
  if (l < 16) s[l] += s[l + 16];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) out[get_group_id(0)] = s[0] + s[1];
}
