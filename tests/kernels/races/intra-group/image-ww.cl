// Two work-items of one group write_imagef the same texel: work-items 2k and 2k+1 both
// store to texel k of a 2-D image, with different values (a real write-write race on the
// image's memory).
// kernel: paint
// global: 8   local: 8
// arg: image2d float 4 1 fill=zero name=img
// expect: data-race race=write-write memory=global scope=intra-group buffer=img
__kernel void paint(__write_only image2d_t img) {
  int i = get_global_id(0);
  write_imagef(img, (int2)(i / 2, 0), (float4)(i, 0.0f, 0.0f, 1.0f));
}
