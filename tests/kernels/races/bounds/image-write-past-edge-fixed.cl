// Twin of image-write-past-edge.cl: the last column is dropped instead of written past
// the edge.
// kernel: shift_right
// global: 8,4   local: 8,1
// arg: image2d float 8 4 fill=iota name=img
// arg: image2d float 8 4 fill=zero name=out
// expect: none
__kernel void shift_right(__read_only image2d_t img, __write_only image2d_t out) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x + 1 < get_image_width(out))
    write_imagef(out, (int2)(x + 1, y), read_imagef(img, (int2)(x, y)));
}
