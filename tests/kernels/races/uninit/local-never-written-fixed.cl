// Twin of local-never-written.cl: each work-item writes its slot first.
// kernel: leak
// global: 16   local: 16
// arg: buffer int 16 fill=zero name=out
// arg: local int 16
// expect: none
__kernel void leak(__global int *out, __local int *tmp) {
  int l = get_local_id(0);
  tmp[l] = l;
  out[l] = tmp[l] + 1;
}
