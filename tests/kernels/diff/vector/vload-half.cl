// vload_half / vload_half4 and vstore_half (round to nearest even), vstore_half_rtz,
// vstore_half4_rtp on values that need rounding.
// kernel: halves
// global: 16   local: 16
// arg: buffer ushort 64 fill=values(0x3c00,0xc000,0x3555,0x7bff,0x0001,0x8400,0x4248,0x0000) name=h
// arg: buffer float 64 fill=random(55,-70000,70000) name=f
// arg: buffer float 64 fill=zero name=loaded
// arg: buffer ushort 192 fill=zero name=stored
// compare: exact loaded stored
__kernel void halves(__global const ushort *h, __global const float *f, __global float *loaded, __global ushort *stored) {
  int i = get_global_id(0);
  __global const half *hp = (__global const half *)h;
  __global half *sp = (__global half *)stored;
  float4 v = vload_half4(i, hp);
  loaded[4 * i] = vload_half(4 * i, hp);
  loaded[4 * i + 1] = v.y + v.z;
  loaded[4 * i + 2] = v.w;
  loaded[4 * i + 3] = v.x * 2.0f;
  float x = f[4 * i] / 8.0f;
  vstore_half(x, 12 * i, sp);
  vstore_half_rtz(x, 12 * i + 1, sp);
  vstore_half(f[4 * i + 1], 12 * i + 2, sp);
  vstore_half4_rtp(vload4(i, f) / 3.0f, 3 * i + 1, sp);
  vstore_half4_rtn(vload4(i, f) / 7.0f, 3 * i + 2, sp);
}
