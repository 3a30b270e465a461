// Every group writes its partial result to out[0]: write-write race between groups.
// kernel: group_total
// global: 64   local: 16
// arg: buffer int 64 fill=ones name=in
// arg: buffer int 4 fill=zero name=out
// arg: local int 16
// expect: data-race race=write-write memory=global scope=inter-group buffer=out
__kernel void group_total(__global const int *in, __global int *out, __local int *s) {
  int l = get_local_id(0);
  s[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) {
    int t = 0;
    for (int k = 0; k < 16; k++) t += s[k];
    out[0] = t + get_group_id(0);
  }
}
