// Issue #11 R5: the async copy is in flight until wait_group_events; a barrier does not
// finish it, so the reads of `tile` race with the copy's writes.
// kernel: stage
// global: 128   local: 64
// arg: buffer float 128 fill=iota name=src
// arg: buffer float 128 fill=zero name=dst
// expect: data-race memory=local scope=intra-group buffer=tile
__kernel void stage(__global const float *src, __global float *dst) {
  __local float tile[64];
  event_t e = async_work_group_copy(tile, src + 64 * get_group_id(0), 64, 0);
  barrier(CLK_LOCAL_MEM_FENCE);
  dst[get_global_id(0)] = tile[get_local_id(0)];
  wait_group_events(1, &e);
}
