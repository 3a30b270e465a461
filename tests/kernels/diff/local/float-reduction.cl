// Tree reduction of floats: the summation order is fixed by the kernel, so the result
// is bit-exact on every conforming platform.
// kernel: reducef
// global: 512   local: 64
// arg: buffer float 512 fill=random(71) name=in
// arg: buffer float 8 fill=zero name=out
// arg: local float 64
// compare: exact out
__kernel void reducef(__global const float *in, __global float *out, __local float *s) {
  int l = get_local_id(0);
  s[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = 32; k > 0; k >>= 1) {
    if (l < k)
      s[l] += s[l + k];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0)
    out[get_group_id(0)] = s[0];
}
