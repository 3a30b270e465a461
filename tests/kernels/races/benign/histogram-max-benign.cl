// Work-items whose key is 3 all store 1 into seen[3]; other keys store 1 into their own
// slot: many same-value writes from different groups.
// kernel: mark_seen
// global: 64   local: 16
// arg: buffer uint 64 fill=random(5,0,3) name=keys
// arg: buffer int 4 fill=zero name=seen
// checks: races,benign
// expect: benign-race memory=global buffer=seen
__kernel void mark_seen(__global const uint *keys, __global int *seen) {
  seen[keys[get_global_id(0)]] = 1;
}
