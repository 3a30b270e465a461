// A private array filled through an index table that repeats entries: s[2] and s[3] are
// never written, then read (issue #12, M2). The array is indexed at run time, so it stays
// in private memory at every optimisation level.
// kernel: scatter
// global: 4   local: 4
// arg: buffer uint 4 fill=values(0,0,1,1) name=idx
// arg: buffer float 16 fill=zero name=out
// expect: uninitialized-read memory=private
__kernel void scatter(__global const uint *idx, __global float *out) {
  float s[4];
  for (int i = 0; i < 4; i++) s[idx[i]] = i;
  for (int i = 0; i < 4; i++) out[get_global_id(0) * 4 + i] = s[i];
}
