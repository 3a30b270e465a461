// Work-items past the valid length return early, then the rest hit a barrier.
// kernel: guarded
// global: 32   local: 32
// arg: buffer int 32 fill=iota name=data
// arg: scalar int 20
// expect: barrier-divergence
__kernel void guarded(__global int *data, int n) {
  int i = get_global_id(0);
  if (i >= n)
    return;
  int v = data[i];
  barrier(CLK_GLOBAL_MEM_FENCE);
  data[i] = v + 1;
}
