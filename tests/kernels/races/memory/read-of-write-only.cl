// The host created `out` CL_MEM_WRITE_ONLY, and the kernel accumulates into it: `+=` reads
// the buffer first, which is undefined for write-only memory (OpenCL 3.0 5.2.1).
// kernel: accumulate
// global: 16   local: 16
// arg: buffer float 16 fill=iota name=in
// arg: buffer float 16 fill=zero name=out flags=write-only
// expect: invalid-access memory=global buffer=out count=16
__kernel void accumulate(__global const float *in, __global float *out) {
  size_t i = get_global_id(0);
  out[i] += 2.0f * in[i];
}
