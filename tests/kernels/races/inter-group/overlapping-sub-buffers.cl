// Two sub-buffers of one buffer overlap: the kernel writes through one and reads through the
// other. Work-item i writes element 32 + i of the parent through `dst`; work-item 32 + i, in
// another work-group, reads that element through `src`. Races are found on the parent's
// bytes, whatever view the accesses went through.
// kernel: shift
// global: 64   local: 8
// arg: buffer int 256 fill=iota name=all
// arg: sub all 32 64 name=dst
// arg: sub all 0 64 name=src flags=read-only
// expect: data-race race=read-write memory=global scope=inter-group buffer=all
__kernel void shift(__global int *all, __global int *dst, __global const int *src) {
  size_t i = get_global_id(0);
  dst[i] = src[i] + 1;
}
