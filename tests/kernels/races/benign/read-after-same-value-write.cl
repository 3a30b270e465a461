// Issue #11 R8: after the barrier every item reads a[0] and stores the value back. The reads
// race only with writes that stored the value already there: benign, not a data race (and
// the same-value writes before the barrier are benign write-write races).
// kernel: keep
// global: 128   local: 64
// arg: local int 1
// arg: buffer int 128 fill=zero name=out
// checks: races,benign
// expect: benign-race memory=local scope=intra-group buffer=a
__kernel void keep(__local int *a, __global int *out) {
  a[0] = 3;
  barrier(CLK_LOCAL_MEM_FENCE);
  int v = a[0];
  a[0] = v;
  out[get_global_id(0)] = v;
}
