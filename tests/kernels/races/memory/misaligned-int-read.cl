// Issue #12 M4: an int read at byte 2 of the buffer. OpenCL C 6.3 leaves an access whose
// address is not a multiple of its type's size undefined (many GPUs round the address down).
// kernel: peek
// global: 1   local: 1
// arg: buffer int 4 fill=iota name=in
// arg: buffer int 1 fill=zero name=out
// expect: misaligned-access memory=global buffer=in count=1
__kernel void peek(__global int *in, __global int *out) {
  __global int *p = (__global int *)((__global char *)in + 2);
  out[0] = *p;
}
