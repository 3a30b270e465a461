// Twin of local-fence-global-ww.cl with a global fence on the barrier.
// kernel: overwrite
// global: 16   local: 16
// arg: buffer int 16 fill=zero name=buf
// expect: none
__kernel void overwrite(__global int *buf) {
  int i = get_global_id(0);
  buf[i] = 1;
  barrier(CLK_GLOBAL_MEM_FENCE);
  buf[(i + 1) % 16] = 2 + i;
}
