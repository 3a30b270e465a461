// Twin of array-field-overflow.cl: the host's index (1) is the field's last element.
// kernel: fields
// global: 4   local: 4
// arg: buffer int 1 fill=values(1) name=n
// arg: buffer int 4 fill=zero name=out
// expect: none
struct pair { int a[2]; int b; };
__kernel void fields(__global const int *n, __global int *out) {
  struct pair p = {{1, 2}, 3};
  p.a[n[0]] = 7;
  out[get_global_id(0)] = p.a[0] + p.b;
}
