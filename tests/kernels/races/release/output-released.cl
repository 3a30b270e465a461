// The output buffer is released before the kernel that writes it runs.
// kernel: fill
// global: 32   local: 16
// arg: buffer float 32 fill=zero name=out
// arg: scalar float 1.5
// release-before-launch: out
// expect: use-after-release buffer=out
// oclgrind: out-of-bounds Oclgrind frees the memory at clReleaseMemObject and reports the kernel accesses to it as invalid reads/writes
__kernel void fill(__global float *out, float v) {
  out[get_global_id(0)] = v;
}
