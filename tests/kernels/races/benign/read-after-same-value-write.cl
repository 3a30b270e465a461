// After the barrier every item reads a[0] and stores back what it read: the stores' value
// comes from those bytes (its provenance, not this input's chance), so the reads race only
// with stores that change nothing: benign, not a data race (and the stores of 3 before the
// barrier are benign write-write races).
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
