// Work-items 0-3 each write a different component of one local float4 (GPUVerify's
// vectortests): OpenCL C writes only the component named, so they do not race, though
// clang's unoptimised code reads and writes the whole vector for each.
// kernel: k
// global: 128   local: 64
// arg: buffer float 128 fill=zero name=out
// expect: none
// oclgrind: data-race,uninitialized-read Oclgrind reads and writes the whole vector for a component's store, as clang's unoptimised code does
__kernel void k(__global float *out) {
  __local float4 L[1];
  size_t lid = get_local_id(0);
  if (lid == 0) L[0].x = 1.0f;
  if (lid == 1) L[0].y = 2.0f;
  if (lid == 2) L[0].z = 3.0f;
  if (lid == 3) L[0].w = 4.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = L[0].x + L[0].y + L[0].z + L[0].w;
}
