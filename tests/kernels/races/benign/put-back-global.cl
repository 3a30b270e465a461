// Twin of put-back-global-benign.cl under the default checks: reads racing only with stores
// that put back what was there are benign races, hidden by default.
// kernel: keep
// global: 128   local: 64
// arg: buffer int 1 fill=values(7) name=a
// arg: buffer int 128 fill=ones name=in
// arg: buffer int 128 fill=zero name=out
// expect: none
__kernel void keep(__global int *a, __global const int *in, __global int *out) {
  int v = a[0];
  a[0] = v;
  out[get_global_id(0)] = v;
}
