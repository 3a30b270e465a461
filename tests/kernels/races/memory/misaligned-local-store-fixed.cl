// Race-free twin of misaligned-local-store: the short2 values sit at multiples of 4 bytes.
// kernel: pack
// global: 16   local: 16
// arg: buffer short 32 fill=iota name=in
// arg: buffer short 32 fill=zero name=out
// arg: local char 80
// oclgrind: uninitialized-read Oclgrind takes the short2 built lane by lane (insertelement into an undefined vector) for an uninitialised value when it is stored
// expect: none
__kernel void pack(__global const short *in, __global short *out, __local char *scratch) {
  size_t i = get_local_id(0);
  __local short2 *p = (__local short2 *)(scratch + 4 + 4 * i);
  *p = (short2)(in[2 * i], in[2 * i + 1]);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[2 * i] = scratch[4 + 4 * i];
  out[2 * i + 1] = scratch[6 + 4 * i];
}
