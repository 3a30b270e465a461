// Twin of const-cast-write.cl: a global barrier orders every read before the writes.
// kernel: smooth
// global: 32   local: 32
// arg: buffer int 33 fill=iota name=data
// arg: buffer int 32 fill=zero name=out
// expect: none
__kernel void smooth(__global const int *data, __global int *out) {
  int i = get_global_id(0);
  int own = data[i];
  int right = data[i + 1];
  out[i] = own + right;
  barrier(CLK_GLOBAL_MEM_FENCE);
  ((__global int *)data)[i] = own + right;
}
