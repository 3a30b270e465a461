// Issue #12 M5: a valid OpenCL C 2.0 program whose program-scope pointer is initialised with
// the address of another program-scope variable: it builds, runs and is clean.
// kernel: read_table
// options: -cl-std=CL2.0
// global: 2   local: 2
// arg: buffer int 2 fill=zero name=out
// expect: none
global int table[] = {7, 42};
global int *second = &table[1];
__kernel void read_table(__global int *out) {
  if (get_global_id(0) == 0) {
    out[0] = table[0];
    out[1] = *second;
  }
}
