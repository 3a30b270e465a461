// Race-free twin of write-to-read-only: the read-only buffer is only read.
// kernel: bump
// global: 16   local: 16
// arg: buffer int 16 fill=iota name=in flags=read-only
// arg: buffer int 16 fill=zero name=out
// expect: none
__kernel void bump(__global int *in, __global int *out) {
  size_t i = get_global_id(0);
  out[i] = in[i] + 1;
}
