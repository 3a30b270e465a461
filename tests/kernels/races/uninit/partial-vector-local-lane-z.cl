// Twin of partial-vector-local.cl that also reads lane z, which nobody wrote.
// kernel: half_vec
// global: 8   local: 8
// arg: buffer float 8 fill=zero name=out
// twin: partial-vector-local.cl
// expect: uninitialized-read memory=local buffer=v
__kernel void half_vec(__global float *out) {
  __local float4 v[8];
  int l = get_local_id(0);
  __local float *p = (__local float *)&v[l];
  p[0] = l;
  p[1] = 2 * l;
  out[l] = p[0] + p[1] + p[2];
}
