// A serial loop with `<=` reads one element past the end.
// kernel: total
// global: 1   local: 1
// arg: buffer int 16 fill=ones name=in
// arg: buffer int 1 fill=zero name=out
// arg: scalar int 16
// expect: out-of-bounds memory=global buffer=in
// oclgrind: out-of-bounds,uninitialized-read Oclgrind treats the value an invalid read returns as uninitialised and reports it again when it is stored
__kernel void total(__global const int *in, __global int *out, int n) {
  int s = 0;
  for (int k = 0; k <= n; k++)
    s += in[k];
  out[0] = s;
}
