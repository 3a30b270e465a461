// Every group adds its id to a program-scope variable (OpenCL C 2.0): write-write race
// between groups on memory no kernel argument names.
// kernel: tally
// options: -cl-std=CL2.0
// global: 64   local: 16
// arg: buffer int 64 fill=zero name=out
// expect: data-race race=write-write memory=global scope=inter-group
global int total = 0;
__kernel void tally(__global int *out) {
  if (get_local_id(0) == 0) total += (int)get_group_id(0);
  out[get_global_id(0)] = 1;
}
