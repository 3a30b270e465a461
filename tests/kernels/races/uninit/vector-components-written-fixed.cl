// Each work-item fills its float4 of an uninitialised buffer component by component, then
// reads it whole: the first component's store reads nothing (OpenCL C writes only the
// component named), so nothing is read before it is written.
// kernel: k
// global: 64   local: 16
// arg: buffer float 256 fill=none name=v
// arg: buffer float 64 fill=zero name=out
// expect: none
// oclgrind: uninitialized-read Oclgrind reads and writes the whole vector for a component's store, as clang's unoptimised code does
__kernel void k(__global float4 *v, __global float *out) {
  size_t i = get_global_id(0);
  v[i].x = i;
  v[i].y = 2 * i;
  v[i].z = 3 * i;
  v[i].w = 4 * i;
  float4 u = v[i];
  out[i] = u.x + u.y + u.z + u.w;
}
