// Racy twin of vector-halves-fixed: work-item 1 reads .yz, and z is what work-item 0 writes.
// kernel: k
// global: 128   local: 64
// arg: buffer float 256 fill=zero name=out
// twin: vector-halves-fixed.cl
// expect: data-race race=read-write memory=local scope=intra-group buffer=L
// oclgrind: data-race,uninitialized-read Oclgrind reads the whole vector for a swizzle, as clang's unoptimised code does, and reports the unwritten components as uninitialised
__kernel void k(__global float2 *out) {
  __local float4 L[1];
  size_t lid = get_local_id(0), g = get_global_id(0);
  if (lid == 0) L[0].xy = (float2)(1, 2);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) L[0].zw = (float2)(3, 4);
  if (lid == 1) out[g] = L[0].yz;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 2) out[g] = L[0].zw;
}
