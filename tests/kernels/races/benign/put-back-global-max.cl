// Like put-back-global-benign.cl, but each work-item stores max(a[0], in[i]): on this input every
// in[i] is below a[0], so every store writes the value already there, yet only by this
// input's chance (an in[i] above it changes a[0] under the other readers). The read-write
// race is a data race, said to hide no wrong value on this input; the writes of one value
// stay a benign write-write race.
// kernel: keep
// global: 128   local: 64
// arg: buffer int 1 fill=values(7) name=a
// arg: buffer int 128 fill=ones name=in
// arg: buffer int 128 fill=zero name=out
// checks: races,benign
// twin: put-back-global.cl
// expect: data-race race=read-write memory=global scope=inter-group buffer=a says=hid-no-wrong-value
// expect: benign-race race=write-write memory=global buffer=a
__kernel void keep(__global int *a, __global const int *in, __global int *out) {
  int v = a[0];
  a[0] = max(v, in[get_global_id(0)]);
  out[get_global_id(0)] = v;
}
