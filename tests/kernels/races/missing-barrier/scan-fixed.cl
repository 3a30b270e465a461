// Twin of scan.cl: a barrier between the read and the write of every step.
// kernel: scan
// global: 32   local: 32
// arg: buffer int 32 fill=ones name=data
// arg: local int 32
// expect: none
__kernel void scan(__global int *data, __local int *scratch) {
  int l = get_local_id(0);
  scratch[l] = data[l];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int d = 1; d < 32; d <<= 1) {
    int v = l >= d ? scratch[l - d] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    scratch[l] += v;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  data[l] = scratch[l];
}
