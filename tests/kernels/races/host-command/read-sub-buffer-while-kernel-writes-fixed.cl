// Twin of read-sub-buffer-while-kernel-writes.cl: the sub-buffer read covers elements 0..64
// only, below what the kernel writes: unordered, yet no byte in common.
// queue: out-of-order
// kernel: upper
// global: 32   local: 8
// arg: buffer int 128 fill=zero name=all
// arg: sub all 0 64 name=window
// command: read window
// expect: none
__kernel void upper(__global int *all, __global int *window) {
  all[64 + get_global_id(0)] = 1;
}
