// Sampling a 4x4 float RGBA image: nearest and linear filtering with normalized
// coordinates, clamp-to-edge and repeat addressing. Texels hold small integers and the
// coordinates fall on texel centres or midway between them, so the filter weights (0,
// 0.5, 1) are exact and every platform gives the same floats.
// kernel: sample_filters
// global: 16   local: 4
// arg: image2d float 4 4 fill=iota name=img
// arg: buffer float 128 fill=zero name=out
// compare: exact out
__kernel void sample_filters(__read_only image2d_t img, __global float *out) {
  const sampler_t near_edge = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
  const sampler_t lin_rep = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
  int i = get_global_id(0);
  // Texel centre (i%4, i/4) and the point midway to the next texel, normalized by 4.
  float2 c = (float2)((i % 4) + 0.5f, (i / 4) + 0.5f) / 4.0f;
  float2 m = (float2)((i % 4) + 1.0f, (i / 4) + 0.5f) / 4.0f;
  vstore4(read_imagef(img, near_edge, c), 0, out + 8 * i);
  vstore4(read_imagef(img, lin_rep, m), 1, out + 8 * i);
}
