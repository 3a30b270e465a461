// A histogram with plain increments: work-items of different groups increment the same bin.
// kernel: histogram
// global: 64   local: 16
// arg: buffer uint 64 fill=random(7,0,3) name=keys
// arg: buffer uint 4 fill=zero name=bins
// schedule-dependent: the values stored depend on the race's outcome, so whether an item's write stores the value already there (a benign write-write pair, hidden by default) differs between schedules
// expect: data-race race=read-write memory=global buffer=bins
__kernel void histogram(__global const uint *keys, __global uint *bins) {
  uint k = keys[get_global_id(0)];
  bins[k] = bins[k] + 1;
}
