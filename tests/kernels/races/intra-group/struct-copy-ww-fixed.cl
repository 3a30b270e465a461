// Twin of struct-copy-ww.cl: every work-item copies its struct into a slot of its own.
// kernel: pack_pairs
// global: 16   local: 16
// arg: buffer int 48 fill=iota name=in
// arg: buffer int 48 fill=zero name=out
// expect: none
struct rec { int key; float weight; int next; };
__kernel void pack_pairs(__global const struct rec *in, __global struct rec *out) {
  int i = get_global_id(0);
  out[i] = in[i];
}
