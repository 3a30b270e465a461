// Each work-item fills its float4 and its float3 of uninitialised buffers through swizzle
// and component assignments, then reads them whole: a swizzle assignment writes only the
// components it names (and one of every component, .wzyx, reads nothing), and a float3 in
// memory is three components, its padding never read.
// kernel: k
// global: 64   local: 16
// arg: buffer float 256 fill=none name=out
// arg: buffer float 256 fill=none name=o3
// arg: buffer float 64 fill=zero name=res
// oclgrind: fatal Oclgrind 21.10 crashes (killed by a signal) on this kernel with OCLGRIND_UNINITIALIZED=1
// expect: none
__kernel void k(__global float4 *out, __global float3 *o3, __global float *res) {
  size_t i = get_global_id(0);
  float2 a = (float2)(i, 2 * i);
  out[i].xyz = (float3)(1, 2, 3);
  out[i].w = 4;
  out[i].wzyx = (float4)(i, 1, 2, 3);
  o3[i].xy = a;
  o3[i].z = 7;
  out[i].hi = a;
  float4 d = out[i];
  float3 e = o3[i];
  res[i] = d.x + d.y + d.z + d.w + e.x + e.y + e.z;
}
