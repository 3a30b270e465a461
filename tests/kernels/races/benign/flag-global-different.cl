// Like flag-global-benign.cl but each work-item writes its own id: a real write-write race.
// kernel: any_match
// global: 64   local: 16
// arg: buffer int 64 fill=iota name=in
// arg: buffer int 1 fill=zero name=found
// checks: races,benign
// twin: flag-global-single.cl
// expect: data-race race=write-write memory=global buffer=found
__kernel void any_match(__global const int *in, __global int *found) {
  if (in[get_global_id(0)] % 4 == 0)
    *found = get_global_id(0);
}
