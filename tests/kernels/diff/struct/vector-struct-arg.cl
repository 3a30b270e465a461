// A by-value float4 argument and a by-value struct holding an int2 and a float.
// kernel: blend
// global: 16   local: 16
// arg: scalar float4 0.5,0.25,2,-1
// arg: scalar struct(int2,float) 2,5,1.5
// arg: buffer float 64 fill=iota name=io
// compare: exact io
typedef struct { int2 range; float k; } cfg;
__kernel void blend(float4 w, cfg c, __global float *io) {
  int i = get_global_id(0);
  float4 v = vload4(i, io);
  if (i >= c.range.x && i < c.range.y)
    v = v * w * c.k;
  vstore4(v, i, io);
}
