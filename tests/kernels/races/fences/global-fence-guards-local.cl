// A barrier with only CLK_GLOBAL_MEM_FENCE does not order local memory.
// kernel: exchange_local
// global: 32   local: 32
// arg: buffer int 32 fill=iota name=out
// arg: local int 32
// expect: data-race race=read-write memory=local scope=intra-group buffer=tmp
__kernel void exchange_local(__global int *out, __local int *tmp) {
  int i = get_local_id(0);
  tmp[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  tmp[i] = out[i] + 1;
  barrier(CLK_GLOBAL_MEM_FENCE);
  out[i] = tmp[31 - i];
}
