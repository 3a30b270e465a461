// Program-scope data initialised with addresses (OpenCL C 3.0's program-scope global
// variables; PoCL, the reference, has them as OpenCL C 2.0): a pointer to an array element,
// an array of pointers (one to a struct member, one null), read through.
// kernel: read_table
// options: -cl-std=CL3.0
// reference-options: -cl-std=CL2.0
// global: 4   local: 4
// arg: buffer int 24 fill=zero name=out
// compare: exact out
struct pair { int a; int b; };
global int table[] = {7, 42, 99};
global struct pair two = {5, 6};
global int *second = &table[1];
global int *ptrs[] = {&table[2], &two.b, 0};
constant int rows[2][2] = {{1, 2}, {3, 4}};
__kernel void read_table(__global int *out) {
  size_t i = get_global_id(0);
  out[6 * i + 0] = table[i % 3];
  out[6 * i + 1] = *second + (int)i;
  out[6 * i + 2] = *ptrs[0];
  out[6 * i + 3] = *ptrs[1];
  out[6 * i + 4] = ptrs[2] == 0;
  out[6 * i + 5] = rows[i / 2][i % 2];
}
