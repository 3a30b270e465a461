// Issue #11 R2: every work-item stores to `last`, which nobody reads: an optimiser deletes
// the dead store, and the write-write race with it. Checked builds keep it at any -O.
// kernel: flag
// global: 128   local: 64
// arg: buffer int 128 fill=iota name=in
// expect: data-race race=write-write memory=local scope=intra-group buffer=last
// oclgrind: none Oclgrind checks its own optimised build, which deletes the dead store
__kernel void flag(__global int *in) {
  __local int last;
  last = in[get_global_id(0)];
}
