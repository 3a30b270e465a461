// Twin of image-ww.cl: each work-item writes its own texel.
// kernel: paint
// global: 8   local: 8
// arg: image2d float 8 1 fill=zero name=img
// expect: none
__kernel void paint(__write_only image2d_t img) {
  int i = get_global_id(0);
  write_imagef(img, (int2)(i, 0), (float4)(i, 0.0f, 0.0f, 1.0f));
}
