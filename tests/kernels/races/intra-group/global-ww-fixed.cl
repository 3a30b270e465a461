// Twin of global-ww.cl: only even work-items write.
// kernel: pair_write
// global: 32   local: 32
// arg: buffer int 16 fill=zero name=out
// expect: none
__kernel void pair_write(__global int *out) {
  int i = get_global_id(0);
  if (i % 2 == 0)
    out[i / 2] = i;
}
