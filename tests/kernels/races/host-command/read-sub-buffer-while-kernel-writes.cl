// The kernel writes elements 64..96 of a buffer while the host reads, unordered with it, a
// sub-buffer over elements 32..96 (sub-buffer origins are 128-byte aligned): its upper half
// is the kernel's, a race on the parent's bytes from element 64, byte 256, on.
// queue: out-of-order
// kernel: upper
// global: 32   local: 8
// arg: buffer int 128 fill=zero name=all
// arg: sub all 32 64 name=window
// command: read window
// expect: data-race race=read-write memory=global scope=host-command buffer=all lines=13/?
// oclgrind: none Oclgrind runs commands one at a time and checks races only inside a launch
__kernel void upper(__global int *all, __global int *window) {
  all[64 + get_global_id(0)] = 1;
}
