// Barrier flags from a kernel argument (not a constant): CLK_GLOBAL_MEM_FENCE does not order
// local memory, so the neighbour read races with the write.
// kernel: shift
// global: 128   local: 64
// arg: local int 64
// arg: buffer int 128 fill=zero name=out
// arg: scalar int 2
// expect: data-race race=read-write memory=local scope=intra-group buffer=tmp
__kernel void shift(__local int *tmp, __global int *out, int flags) {
  size_t l = get_local_id(0);
  tmp[l] = (int)l;
  barrier(flags);
  out[get_global_id(0)] = tmp[(l + 1) % 64];
}
