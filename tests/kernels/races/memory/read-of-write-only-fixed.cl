// Race-free twin of read-of-write-only: the write-only buffer is only written.
// kernel: accumulate
// global: 16   local: 16
// arg: buffer float 16 fill=iota name=in
// arg: buffer float 16 fill=zero name=out flags=write-only
// expect: none
__kernel void accumulate(__global const float *in, __global float *out) {
  size_t i = get_global_id(0);
  out[i] = 2.0f * in[i];
}
