// Backward difference without a guard: work-item 0 reads in[-1].
// kernel: backward_diff
// global: 32   local: 32
// arg: buffer int 32 fill=iota name=in
// arg: buffer int 32 fill=zero name=out
// expect: out-of-bounds memory=global buffer=in
// oclgrind: out-of-bounds,uninitialized-read Oclgrind treats the value an invalid read returns as uninitialised and reports it again when it is stored
__kernel void backward_diff(__global const int *in, __global int *out) {
  int i = get_global_id(0);
  out[i] = in[i] - in[i - 1];
}
