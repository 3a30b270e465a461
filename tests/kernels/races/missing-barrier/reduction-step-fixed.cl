// Race-free twin of reduction-step-same-value.cl: a barrier between the steps.
// kernel: sum
// global: 64   local: 64
// arg: buffer int 64 fill=values(3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0) name=in
// arg: buffer int 1 fill=zero name=out
// checks: races,benign
// expect: none
__kernel void sum(__global const int *in, __global int *out) {
  __local int s[64];
  int l = get_local_id(0);
  s[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < 32) s[l] += s[l + 32];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < 16) s[l] += s[l + 16];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) out[get_group_id(0)] = s[0] + s[1];
}
