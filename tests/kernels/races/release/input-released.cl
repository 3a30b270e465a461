// The host sets `in` as argument 0, then releases it (its last reference) before
// enqueueing the kernel: the kernel reads a released buffer.
// kernel: copy
// global: 16   local: 16
// arg: buffer int 16 fill=iota name=in
// arg: buffer int 16 fill=zero name=out
// release-before-launch: 0
// expect: use-after-release buffer=in
// oclgrind: out-of-bounds Oclgrind frees the memory at clReleaseMemObject and reports the kernel accesses to it as invalid reads/writes
__kernel void copy(__global const int *in, __global int *out) {
  int i = get_global_id(0);
  out[i] = in[i];
}
