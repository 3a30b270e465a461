// Twin of flag-global-different.cl: a single work-item writes the flag, so even with
// `benign` enabled there is nothing to report.
// kernel: any_match
// global: 64   local: 16
// arg: buffer int 64 fill=iota name=in
// arg: buffer int 1 fill=zero name=found
// checks: races,benign
// expect: none
__kernel void any_match(__global const int *in, __global int *found) {
  if (get_global_id(0) == 8 && in[8] % 4 == 0)
    *found = 8;
}
