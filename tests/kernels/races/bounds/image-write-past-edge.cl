// Off-by-one image write: the kernel shifts every texel one column right, so the last
// column's work-items write_imagef at x == width, outside the 2-D image (undefined).
// kernel: shift_right
// global: 8,4   local: 8,1
// arg: image2d float 8 4 fill=iota name=img
// arg: image2d float 8 4 fill=zero name=out
// expect: out-of-bounds memory=global buffer=out
__kernel void shift_right(__read_only image2d_t img, __write_only image2d_t out) {
  int x = get_global_id(0), y = get_global_id(1);
  write_imagef(out, (int2)(x + 1, y), read_imagef(img, (int2)(x, y)));
}
