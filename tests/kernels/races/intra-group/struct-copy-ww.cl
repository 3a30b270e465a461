// Pairs of work-items copy their struct into the same slot: a write-write race made by a
// struct copy (a memcpy at default options, which lockstep runs lane by lane).
// kernel: pack_pairs
// global: 16   local: 16
// arg: buffer int 48 fill=iota name=in
// arg: buffer int 24 fill=zero name=out
// expect: data-race race=write-write memory=global scope=intra-group buffer=out
struct rec { int key; float weight; int next; };
__kernel void pack_pairs(__global const struct rec *in, __global struct rec *out) {
  int i = get_global_id(0);
  out[i / 2] = in[i];
}
