// Twin of early-return.cl: everyone reaches the barrier; only the guarded work is skipped.
// kernel: guarded
// global: 32   local: 32
// arg: buffer int 32 fill=iota name=data
// arg: scalar int 20
// expect: none
__kernel void guarded(__global int *data, int n) {
  int i = get_global_id(0);
  int v = i < n ? data[i] : 0;
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (i < n)
    data[i] = v + 1;
}
