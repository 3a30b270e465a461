// A tree reduction without a barrier between its steps: item 0 reads s[16] while item 16
// may still be adding s[48] to it. Here in[48..63] are 0, so items 16..31 store the value
// already there: the race hides no wrong value on this input, and it is still a data race
// (the next input corrupts the sum), not a benign one.
// kernel: sum
// global: 64   local: 64
// arg: buffer int 64 fill=values(3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0) name=in
// arg: buffer int 1 fill=zero name=out
// checks: races,benign
// twin: reduction-step-fixed.cl
// expect: data-race race=read-write memory=local scope=intra-group buffer=s says=hid-no-wrong-value-on-this-input
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
