// Consecutive work-items store consecutive words, then each reads the word of the item 16 on
// without a barrier: the store and the read race. Lockstep accesses of whole aligned blocks
// of words by consecutive lanes are checked as one shadow record per block while they find
// nothing: the shifted read must still find the race in each block.
// kernel: shift
// global: 64   local: 64
// arg: buffer float 80 fill=zero name=data
// arg: buffer float 64 fill=zero name=out
// expect: data-race race=read-write memory=global scope=intra-group buffer=data
__kernel void shift(__global float *data, __global float *out) {
  int i = get_global_id(0);
  data[i] = (float)i;
  out[i] = data[i + 16];
}
