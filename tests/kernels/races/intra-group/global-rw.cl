// Work-items of one group read the element their neighbour overwrites, in global memory.
// kernel: shift_global
// global: 32   local: 32
// arg: buffer float 33 fill=iota name=data
// expect: data-race race=read-write memory=global scope=intra-group buffer=data
__kernel void shift_global(__global float *data) {
  int i = get_global_id(0);
  float next = data[i + 1];
  data[i] = next * 0.5f;
}
