// Writes only lanes x and y of a local float4 (through a float pointer) and reads only
// those lanes: every byte read was written.
// kernel: half_vec
// global: 8   local: 8
// arg: buffer float 8 fill=zero name=out
// expect: none
__kernel void half_vec(__global float *out) {
  __local float4 v[8];
  int l = get_local_id(0);
  __local float *p = (__local float *)&v[l];
  p[0] = l;
  p[1] = 2 * l;
  out[l] = p[0] + p[1];
}
