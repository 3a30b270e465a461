// Twin of private-array-scatter.cl: the index table is a permutation, so every element of
// the private array is written before it is read.
// kernel: scatter
// global: 4   local: 4
// arg: buffer uint 4 fill=values(2,0,3,1) name=idx
// arg: buffer float 16 fill=zero name=out
// expect: none
__kernel void scatter(__global const uint *idx, __global float *out) {
  float s[4];
  for (int i = 0; i < 4; i++) s[idx[i]] = i;
  for (int i = 0; i < 4; i++) out[get_global_id(0) * 4 + i] = s[i];
}
