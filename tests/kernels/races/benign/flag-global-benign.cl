// Every work-item that sees a match sets the same global flag to 1: a same-value
// (benign) write-write race, reported only when `benign` is among the checks.
// kernel: any_match
// global: 64   local: 16
// arg: buffer int 64 fill=iota name=in
// arg: buffer int 1 fill=zero name=found
// checks: races,benign
// twin: flag-global.cl
// expect: benign-race memory=global buffer=found
__kernel void any_match(__global const int *in, __global int *found) {
  if (in[get_global_id(0)] % 4 == 0)
    *found = 1;
}
