// Issue #11 R1: item i reads t[i+1] while item i+1 writes it. Local memory starts undefined,
// and the racing write stores 0 over bytes that never held a value: that is no same-value
// (benign) write, under any schedule. t[64], t[65] are never written: uninitialised reads too.
// kernel: shift
// global: 128   local: 64
// arg: local int 66
// arg: buffer int 128 fill=zero name=out
// expect: data-race race=read-write memory=local scope=intra-group buffer=t
// expect: uninitialized-read memory=local buffer=t
__kernel void shift(__local int *t, __global int *out) {
  size_t i = get_local_id(0);
  t[i] = t[i + 1];
  out[get_global_id(0)] = t[i + 2];
}
