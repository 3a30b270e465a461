// Twin of global-rw.cl: read into a register, global barrier, then write.
// kernel: shift_global
// global: 32   local: 32
// arg: buffer float 33 fill=iota name=data
// expect: none
__kernel void shift_global(__global float *data) {
  int i = get_global_id(0);
  float next = data[i + 1];
  barrier(CLK_GLOBAL_MEM_FENCE);
  data[i] = next * 0.5f;
}
