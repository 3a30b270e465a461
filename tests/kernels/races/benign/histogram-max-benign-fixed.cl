// Twin of histogram-max-benign.cl: atomic_or marks the slots, so even with `benign`
// enabled there is nothing to report.
// kernel: mark_seen
// global: 64   local: 16
// arg: buffer uint 64 fill=random(5,0,3) name=keys
// arg: buffer int 4 fill=zero name=seen
// checks: races,benign
// expect: none
__kernel void mark_seen(__global const uint *keys, __global int *seen) {
  atomic_or(&seen[keys[get_global_id(0)]], 1);
}
