// Writes tile[l + 1] for l in 0..15 into a 16-element __local argument: the last
// work-item writes one element past its end.
// kernel: stage
// global: 16   local: 16
// arg: buffer int 16 fill=iota name=in
// arg: buffer int 16 fill=zero name=out
// arg: local int 16
// expect: out-of-bounds memory=local buffer=tile
__kernel void stage(__global const int *in, __global int *out, __local int *tile) {
  int l = get_local_id(0);
  tile[l + 1] = in[l];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[l] = l > 0 ? tile[l] : 0;
}
