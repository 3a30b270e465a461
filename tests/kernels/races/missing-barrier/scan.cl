// Hillis-Steele inclusive scan in local memory without the barrier between the read of
// scratch[l - d] and the write of scratch[l].
// kernel: scan
// global: 32   local: 32
// arg: buffer int 32 fill=ones name=data
// arg: local int 32
// expect: data-race race=read-write memory=local scope=intra-group buffer=scratch
__kernel void scan(__global int *data, __local int *scratch) {
  int l = get_local_id(0);
  scratch[l] = data[l];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int d = 1; d < 32; d <<= 1) {
    int v = l >= d ? scratch[l - d] : 0;
    scratch[l] += v;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  data[l] = scratch[l];
}
