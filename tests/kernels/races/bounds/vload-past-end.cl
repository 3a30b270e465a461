// vload4 at element offset 4*i+2 reads two floats past the end for the last work-item.
// kernel: unaligned_sum
// global: 8   local: 8
// arg: buffer float 32 fill=iota name=in
// arg: buffer float 8 fill=zero name=out
// checks: races,divergence,bounds
// (uninit is left out: Oclgrind 21.10 segfaults on any vload4 with OCLGRIND_UNINITIALIZED=1)
// expect: out-of-bounds memory=global buffer=in
__kernel void unaligned_sum(__global const float *in, __global float *out) {
  int i = get_global_id(0);
  float4 v = vload4(0, in + 4 * i + 2);
  out[i] = v.x + v.y + v.z + v.w;
}
