// In-place Jacobi step on global memory inside one group: neighbours read what others
// write in the same step. (The weights make every write change its element, so the race
// is a real one under every schedule, lockstep included, not a same-value write.)
// kernel: jacobi
// global: 32   local: 32
// arg: buffer float 34 fill=iota name=u
// expect: data-race race=read-write memory=global scope=intra-group buffer=u
__kernel void jacobi(__global float *u) {
  int i = get_global_id(0) + 1;
  u[i] = 0.25f * (u[i - 1] + u[i + 1]);
}
