// Twin of flag-global-benign.cl under the default checks: benign races are hidden.
// kernel: any_match
// global: 64   local: 16
// arg: buffer int 64 fill=iota name=in
// arg: buffer int 1 fill=zero name=found
// expect: none
__kernel void any_match(__global const int *in, __global int *found) {
  if (in[get_global_id(0)] % 4 == 0)
    *found = 1;
}
