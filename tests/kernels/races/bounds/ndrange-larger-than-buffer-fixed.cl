// Twin of ndrange-larger-than-buffer.cl with the usual `if (i < n)` guard.
// kernel: scale
// global: 64   local: 16
// arg: buffer float 60 fill=iota name=data
// arg: scalar int 60
// expect: none
__kernel void scale(__global float *data, int n) {
  int i = get_global_id(0);
  if (i < n)
    data[i] = data[i] * 2.0f;
}
