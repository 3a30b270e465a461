// A struct's array field indexed one past its end: the bytes are still the struct's (its
// next field), so no allocation bound is crossed, but the index is past the array.
// kernel: fields
// global: 4   local: 4
// arg: buffer int 1 fill=values(2) name=n
// arg: buffer int 4 fill=zero name=out
// expect: out-of-bounds memory=private
struct pair { int a[2]; int b; };
__kernel void fields(__global const int *n, __global int *out) {
  struct pair p = {{1, 2}, 3};
  p.a[n[0]] = 7;
  out[get_global_id(0)] = p.a[0] + p.b;
}
