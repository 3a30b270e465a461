// Issue #11 R4: item 0 reads hist[0] plainly, then increments it atomically; the other items'
// increments race with that read. The item's own atomic must not hide its read.
// kernel: count
// global: 128   local: 64
// arg: local int 64
// arg: buffer int 128 fill=zero name=seen
// expect: data-race race=atomic-plain memory=local scope=intra-group buffer=hist
__kernel void count(__local int *hist, __global int *seen) {
  hist[get_local_id(0)] = 5;
  barrier(CLK_LOCAL_MEM_FENCE);
  seen[get_global_id(0)] = hist[get_local_id(0)];
  atomic_inc(hist);
}
