// Twin of read-past-end.cl: the last element is guarded.
// kernel: forward_diff
// global: 64   local: 16
// arg: buffer float 64 fill=iota name=in
// arg: buffer float 64 fill=zero name=out
// expect: none
__kernel void forward_diff(__global const float *in, __global float *out) {
  int i = get_global_id(0);
  out[i] = i + 1 < 64 ? in[i + 1] - in[i] : 0.0f;
}
