// Every work-item of two groups reads a[0] and stores back what it read: the stores come
// from those very bytes (their provenance, not this input's values), so whichever order the
// groups run in, a[0] never changes. The reads race only with such stores: benign.
// kernel: keep
// global: 128   local: 64
// arg: buffer int 1 fill=values(7) name=a
// arg: buffer int 128 fill=ones name=in
// arg: buffer int 128 fill=zero name=out
// checks: races,benign
// twin: put-back-global.cl
// expect: benign-race race=read-write memory=global scope=inter-group buffer=a
// expect: benign-race race=write-write memory=global buffer=a
__kernel void keep(__global int *a, __global const int *in, __global int *out) {
  int v = a[0];
  a[0] = v;
  out[get_global_id(0)] = v;
}
