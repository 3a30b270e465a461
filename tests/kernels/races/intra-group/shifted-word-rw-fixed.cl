// Twin of shifted-word-rw.cl: a barrier orders the stores before the shifted reads.
// kernel: shift
// global: 64   local: 64
// arg: buffer float 80 fill=zero name=data
// arg: buffer float 64 fill=zero name=out
// expect: none
__kernel void shift(__global float *data, __global float *out) {
  int i = get_global_id(0);
  data[i] = (float)i;
  barrier(CLK_GLOBAL_MEM_FENCE);
  out[i] = data[i + 16];
}
