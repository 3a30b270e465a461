// Integer images: write_imagei saturates into a SIGNED_INT8 RGBA image, a second kernel
// reads it back with integer coordinates and no sampler (read_imagei), and a 3-D
// UNSIGNED_INT16 image is read with a sampler and queried for its size.
// kernel: store_sat
// global: 4,2   local: 2,2
// arg: image2d char 4 2 fill=none name=img
// kernel: load_back
// global: 4,2   local: 2,2
// arg: use img
// arg: image3d ushort 2 2 2 fill=iota(1,300) name=vol
// arg: buffer int 64 fill=zero name=out
// compare: exact out
__kernel void store_sat(__write_only image2d_t img) {
  int x = get_global_id(0), y = get_global_id(1);
  int v = (x + 4 * y) * 40 - 140;
  write_imagei(img, (int2)(x, y), (int4)(v, -v, v / 2, 300));
}

__kernel void load_back(__read_only image2d_t img, __read_only image3d_t vol, __global int *out) {
  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
  int x = get_global_id(0), y = get_global_id(1);
  int i = x + 4 * y;
  vstore4(read_imagei(img, (int2)(x, y)), 0, out + 8 * i);
  uint4 u = read_imageui(vol, s, (int4)(x - 1, y, x / 2, 0));
  vstore4(as_int4(u), 1, out + 8 * i);
  if (i == 0) {
    int4 d = get_image_dim(vol);
    out[3] = d.x + 10 * d.y + 100 * d.z;
  }
}
