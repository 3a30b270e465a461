// Nested structs and arrays inside structs, built in a helper and returned by value.
// kernel: boxes
// global: 16   local: 16
// arg: buffer int 64 fill=random(91,-50,50) name=in
// arg: buffer int 96 fill=zero name=out
// compare: exact out
typedef struct { int lo, hi; } range;
typedef struct { range r[2]; short tag; char pad; } box;
__attribute__((noinline)) box make(__global const int *v) {
  box b;
  b.r[0].lo = min(v[0], v[1]); b.r[0].hi = max(v[0], v[1]);
  b.r[1].lo = min(v[2], v[3]); b.r[1].hi = max(v[2], v[3]);
  b.tag = (short)(v[0] * v[3]);
  b.pad = 'x';
  return b;
}
__kernel void boxes(__global const int *in, __global int *out) {
  int i = get_global_id(0);
  box b = make(in + 4 * i);
  __global int *o = out + 6 * i;
  o[0] = b.r[0].lo; o[1] = b.r[0].hi; o[2] = b.r[1].lo; o[3] = b.r[1].hi;
  o[4] = b.tag; o[5] = b.pad + (int)sizeof(box);
}
