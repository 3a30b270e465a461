// Each work-item updates its own local slot and reads its right neighbour's slot in
// the same phase: a read-write race on local memory inside one work-group.
// kernel: shift_left
// global: 64   local: 32
// arg: buffer int 64 fill=iota name=out
// arg: local int 32
// expect: data-race race=read-write memory=local scope=intra-group buffer=tmp
__kernel void shift_left(__global int *out, __local int *tmp) {
  int l = get_local_id(0);
  int g = get_global_id(0);
  tmp[l] = out[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  tmp[l] = tmp[l] * 2;                  /* write slot l ...            */
  out[g] = tmp[(l + 1) % 32];           /* ... while l-1 reads slot l  */
}
