// uchar16: wrapping add, saturating add, min/max, .lo/.hi halves and rotate.
// kernel: u16
// global: 16   local: 16
// arg: buffer uchar 256 fill=random(53) name=a
// arg: buffer uchar 1024 fill=zero name=out
// compare: exact out
__kernel void u16(__global const uchar *a, __global uchar *out) {
  int i = get_global_id(0);
  uchar16 v = vload16(i, a);
  uchar16 w = vload16(15 - i, a);
  vstore16(v + w, 4 * i, out);
  vstore16(add_sat(v, w), 4 * i + 1, out);
  vstore16(max(v, w) - min(v, w), 4 * i + 2, out);
  vstore16((uchar16)(rotate(v.hi, (uchar8)(3)), v.lo), 4 * i + 3, out);
}
