// Twin of local-array-overflow.cl: the local argument has 17 elements.
// kernel: stage
// global: 16   local: 16
// arg: buffer int 16 fill=iota name=in
// arg: buffer int 16 fill=zero name=out
// arg: local int 17
// expect: none
__kernel void stage(__global const int *in, __global int *out, __local int *tile) {
  int l = get_local_id(0);
  tile[l + 1] = in[l];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[l] = l > 0 ? tile[l] : 0;
}
