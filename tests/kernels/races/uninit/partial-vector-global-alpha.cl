// Twin of partial-vector-global.cl that also reads the alpha byte nobody wrote.
// kernel: rgb
// global: 16   local: 16
// arg: buffer uchar 64 fill=none name=pix
// arg: buffer int 16 fill=zero name=out
// twin: partial-vector-global.cl
// expect: uninitialized-read memory=global buffer=pix
__kernel void rgb(__global uchar *pix, __global int *out) {
  int i = get_global_id(0);
  pix[4 * i + 0] = i;
  pix[4 * i + 1] = i + 1;
  pix[4 * i + 2] = i + 2;
  out[i] = pix[4 * i] + pix[4 * i + 1] + pix[4 * i + 2] + pix[4 * i + 3];
}
