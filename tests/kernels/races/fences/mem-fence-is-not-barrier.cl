// mem_fence orders one work-item's own accesses; it does not synchronise work-items.
// kernel: fenced
// global: 16   local: 16
// arg: buffer int 16 fill=zero name=out
// arg: local int 16
// expect: data-race race=read-write memory=local scope=intra-group buffer=tmp
__kernel void fenced(__global int *out, __local int *tmp) {
  int i = get_local_id(0);
  tmp[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  tmp[i] = i * i;
  mem_fence(CLK_LOCAL_MEM_FENCE);
  out[i] = tmp[15 - i];
}
