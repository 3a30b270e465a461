// Twin of loop-carried-local.cl: barriers between the read and the write of every step.
// kernel: rotate_left
// global: 16   local: 16
// arg: buffer int 16 fill=iota name=out
// arg: local int 16
// expect: none
__kernel void rotate_left(__global int *out, __local int *buf) {
  int l = get_local_id(0);
  buf[l] = out[l];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = 0; k < 3; k++) {
    int v = buf[(l + 1) % 16];
    barrier(CLK_LOCAL_MEM_FENCE);
    buf[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[l] = buf[l];
}
