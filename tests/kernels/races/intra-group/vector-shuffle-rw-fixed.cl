// Twin of vector-shuffle-rw.cl: the neighbour's vector comes from a buffer nobody writes.
// kernel: rotate
// global: 16   local: 16
// arg: buffer float 68 fill=iota name=src
// arg: buffer float 64 fill=zero name=data
// expect: none
__kernel void rotate(__global const float4 *src, __global float4 *data) {
  int i = get_global_id(0);
  float4 v = src[i + 1];
  float4 w = v.wzyx;
  w.x = v[i & 3];
  data[i] = w;
}
