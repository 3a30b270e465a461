// A short2 stored through a __local pointer at an odd byte: the vector needs 4-byte
// alignment (each element 2), and every work-item's vector starts at an odd byte.
// kernel: pack
// global: 16   local: 16
// arg: buffer short 32 fill=iota name=in
// arg: buffer short 32 fill=zero name=out
// arg: local char 80
// oclgrind: misaligned-access,uninitialized-read Oclgrind takes the short2 built lane by lane (insertelement into an undefined vector) for an uninitialised value when it is stored
// expect: misaligned-access memory=local buffer=scratch
__kernel void pack(__global const short *in, __global short *out, __local char *scratch) {
  size_t i = get_local_id(0);
  __local short2 *p = (__local short2 *)(scratch + 1 + 4 * i);
  *p = (short2)(in[2 * i], in[2 * i + 1]);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[2 * i] = scratch[1 + 4 * i];
  out[2 * i + 1] = scratch[3 + 4 * i];
}
