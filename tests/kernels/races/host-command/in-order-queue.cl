// Write, kernel, read on one in-order queue, all non-blocking: each command follows the
// one before it, nothing races.
// command: write b
// launch: twice
// global: 16   local: 16
// arg: buffer int 16 fill=iota name=b
// command: read b
// expect: none
__kernel void twice(__global int *b) { b[get_global_id(0)] *= 2; }
