// dot, length, distance, normalize on float4 (compared at 8 ulp: OpenCL leaves the
// summation order and fma contraction to the implementation), and cross on
// integer-valued vectors, where every product is exact (compared exactly).
// kernel: geo
// global: 32   local: 32
// arg: buffer float 128 fill=random(57,-3,3) name=a
// arg: buffer float 224 fill=zero name=out
// arg: buffer float 96 fill=zero name=crosses
// compare: ulp=8 out
// compare: exact crosses
__kernel void geo(__global const float *a, __global float *out, __global float *crosses) {
  int i = get_global_id(0);
  float4 v = vload4(i, a), w = vload4((i + 1) % 32, a);
  __global float *p = out + 7 * i;
  p[0] = dot(v, w);
  p[1] = length(v);
  p[2] = distance(v, w);
  float4 n = normalize(v);
  p[3] = n.x; p[4] = n.y; p[5] = n.z; p[6] = n.w;
  float4 c = cross(floor(v * 4.0f), floor(w * 4.0f));
  vstore3(c.xyz, i, crosses);
}
