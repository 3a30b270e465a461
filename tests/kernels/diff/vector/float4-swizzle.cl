// float4 swizzles: .wzyx, .s3210, .xxyy, .lo/.hi, .even/.odd, swizzle assignment.
// kernel: swz
// global: 32   local: 32
// arg: buffer float 128 fill=iota name=a
// arg: buffer float 640 fill=zero name=out
// compare: exact out
__kernel void swz(__global const float *a, __global float *out) {
  int i = get_global_id(0);
  float4 v = vload4(i, a);
  vstore4(v.wzyx, 5 * i, out);
  vstore4(v.s3120 + v.xxyy, 5 * i + 1, out);
  vstore4((float4)(v.hi, v.lo), 5 * i + 2, out);
  vstore4((float4)(v.even, v.odd), 5 * i + 3, out);
  float4 t = v;
  t.xz = v.yw * 2.0f;
  t.w = -t.x;
  vstore4(t, 5 * i + 4, out);
}
