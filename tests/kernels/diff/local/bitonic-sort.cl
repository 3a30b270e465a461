// Bitonic sort of 128 keys per group in local memory.
// kernel: bitonic
// global: 256   local: 128
// arg: buffer int 256 fill=random(75,-10000,10000) name=keys
// arg: local int 128
// compare: exact keys
__kernel void bitonic(__global int *keys, __local int *s) {
  int l = get_local_id(0), base = get_group_id(0) * 128;
  s[l] = keys[base + l];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = 2; k <= 128; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      int p = l ^ j;
      if (p > l) {
        int a = s[l], b = s[p];
        bool up = (l & k) == 0;
        if ((a > b) == up) {
          s[l] = b;
          s[p] = a;
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  keys[base + l] = s[l];
}
