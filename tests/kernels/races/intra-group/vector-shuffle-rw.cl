// Each work-item reads its neighbour's vector, swizzles it (vector moves and a dynamic
// component, which lockstep runs lane by lane) and stores over its own: the neighbour's
// store races with the read.
// kernel: rotate
// global: 16   local: 16
// arg: buffer float 68 fill=iota name=data
// expect: data-race race=read-write memory=global scope=intra-group buffer=data
__kernel void rotate(__global float4 *data) {
  int i = get_global_id(0);
  float4 v = data[i + 1];
  float4 w = v.wzyx;
  w.x = v[i & 3];
  data[i] = w;
}
