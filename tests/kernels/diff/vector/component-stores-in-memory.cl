// Component and swizzle assignments to vectors in global and local memory (each writes
// only the components it names), compound component updates, and float3/int3 in memory
// (three components; the padding, whose value is unspecified, starts and stays zero).
// kernel: parts
// global: 32   local: 32
// arg: buffer float 128 fill=iota name=a
// arg: buffer float 128 fill=random(7,-100,100) name=v
// arg: buffer int 128 fill=zero name=t
// compare: exact v t
__kernel void parts(__global const float *a, __global float4 *v, __global int3 *t) {
  __local float4 tile[32];
  int i = get_global_id(0), l = get_local_id(0);
  float4 x = vload4(i, a);
  tile[l] = x;
  barrier(CLK_LOCAL_MEM_FENCE);
  tile[l].y = x.w * 2.0f;
  tile[l].zw = x.xy - 1.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  v[i].x = tile[(l + 1) % 32].y;
  v[i].wz = tile[l].xz;
  v[i].s1 += tile[l].w;
  if (i % 3 == 0) v[i].wzyx = v[i];
  t[i].y = (int)x.x * 3;
  t[i].xz = (int2)(i, -i);
  t[i].z -= t[i].x;
  if (i % 4 == 1) t[i] = t[i].zxy;
}
