// Twin of vector-components-written-fixed that never writes component w but reads it.
// kernel: k
// global: 64   local: 16
// arg: buffer float 256 fill=none name=v
// arg: buffer float 64 fill=zero name=out
// twin: vector-components-written-fixed.cl
// expect: uninitialized-read memory=global buffer=v
__kernel void k(__global float4 *v, __global float *out) {
  size_t i = get_global_id(0);
  v[i].x = i;
  v[i].y = 2 * i;
  v[i].z = 3 * i;
  out[i] = v[i].x + v[i].y + v[i].z + v[i].w;
}
