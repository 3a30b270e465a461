// Twin of histogram-plain.cl: atomic_inc makes the increments race-free.
// kernel: histogram
// global: 64   local: 16
// arg: buffer uint 64 fill=random(7,0,3) name=keys
// arg: buffer uint 4 fill=zero name=bins
// expect: none
__kernel void histogram(__global const uint *keys, __global uint *bins) {
  uint k = keys[get_global_id(0)];
  atomic_inc(&bins[k]);
}
