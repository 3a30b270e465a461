// Hillis-Steele inclusive prefix sum per group in local memory.
// kernel: scan
// global: 256   local: 64
// arg: buffer int 256 fill=random(72,0,9) name=data
// arg: local int 64
// compare: exact data
__kernel void scan(__global int *data, __local int *s) {
  int l = get_local_id(0), g = get_global_id(0);
  s[l] = data[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int d = 1; d < 64; d <<= 1) {
    int v = l >= d ? s[l - d] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    s[l] += v;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  data[g] = s[l];
}
