// Twin of minmax-only.cl with a plain compare-and-store for the maximum.
// kernel: extremes
// global: 128   local: 32
// arg: buffer int 128 fill=random(11,-1000,1000) name=in
// arg: buffer int 2 fill=values(1000000,-1000000) name=mm
// twin: minmax-only.cl
// schedule-dependent: whether an item stores the maximum depends on the value it read, so the racing writes differ between schedules
// expect: data-race memory=global buffer=mm
__kernel void extremes(__global const int *in, __global int *mm) {
  int v = in[get_global_id(0)];
  atomic_min(&mm[0], v);
  if (v > mm[1])
    mm[1] = v;
}
