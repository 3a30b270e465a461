// Twin of vector-swizzles-written-fixed whose float3 never gets component z but is read
// whole.
// kernel: k
// global: 64   local: 16
// arg: buffer float 256 fill=none name=out
// arg: buffer float 256 fill=none name=o3
// arg: buffer float 64 fill=zero name=res
// twin: vector-swizzles-written-fixed.cl
// oclgrind: fatal Oclgrind 21.10 crashes (killed by a signal) on this kernel with OCLGRIND_UNINITIALIZED=1
// expect: uninitialized-read memory=global buffer=o3 count=64
__kernel void k(__global float4 *out, __global float3 *o3, __global float *res) {
  size_t i = get_global_id(0);
  float2 a = (float2)(i, 2 * i);
  out[i].xyz = (float3)(1, 2, 3);
  out[i].w = 4;
  out[i].wzyx = (float4)(i, 1, 2, 3);
  o3[i].xy = a;
  out[i].hi = a;
  float4 d = out[i];
  float3 e = o3[i];
  res[i] = d.x + d.y + d.z + d.w + e.x + e.y + e.z;
}
