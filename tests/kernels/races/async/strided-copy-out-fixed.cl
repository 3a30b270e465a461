// Race-free twin of strided-copy-out.cl: the item writes the gaps the strided copy skips.
// kernel: scatter
// global: 64   local: 16
// arg: buffer int 128 fill=zero name=out
// expect: none
// oclgrind: uninitialized-read Oclgrind reports an uninitialised value written by the strided local-to-global copy, whose 16 source elements are all written before the barrier
__kernel void scatter(__global int *out) {
  __local int tile[16];
  size_t i = get_local_id(0);
  tile[i] = (int)get_global_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  event_t e = async_work_group_strided_copy(out + 2 * 16 * get_group_id(0), tile, 16, 2, 0);
  out[2 * 16 * get_group_id(0) + 2 * i + 1] = -1;
  wait_group_events(1, &e);
}
