// A struct passed by value as a kernel argument (char, int, float: with padding).
// kernel: affine
// global: 32   local: 32
// arg: scalar struct(char,int,float) 3,-7,0.5
// arg: buffer int 32 fill=iota name=in
// arg: buffer float 32 fill=zero name=out
// compare: exact out
typedef struct { char shift; int offset; float scale; } params;
__kernel void affine(params p, __global const int *in, __global float *out) {
  int i = get_global_id(0);
  out[i] = (float)((in[i] << p.shift) + p.offset) * p.scale;
}
