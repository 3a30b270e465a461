// Write, local-only barrier, then write the neighbour's global slot: write-write race on
// global memory not ordered by the local fence.
// kernel: overwrite
// global: 16   local: 16
// arg: buffer int 16 fill=zero name=buf
// expect: data-race race=write-write memory=global scope=intra-group buffer=buf
__kernel void overwrite(__global int *buf) {
  int i = get_global_id(0);
  buf[i] = 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  buf[(i + 1) % 16] = 2 + i;
}
