// Only one work-item prints (the order of lines from different work-items is not
// defined), after a local reduction: stdout is deterministic.
// kernel: report
// global: 64   local: 16
// arg: buffer int 64 fill=iota name=in
// arg: local int 16
// compare: exact stdout
__kernel void report(__global const int *in, __local int *s) {
  int l = get_local_id(0);
  s[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_global_id(0) == 0) {
    int total = 0;
    for (int k = 0; k < 16; k++) total += s[k];
    printf("group 0 total %d of %d items\n", total, (int)get_local_size(0));
  }
}
