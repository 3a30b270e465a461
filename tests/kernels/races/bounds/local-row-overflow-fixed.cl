// Twin of local-row-overflow.cl: the column (3) is the row's last element; the end of a
// row may still be named (`&t[r][4]`), as C allows one past an array.
// kernel: rows
// global: 16   local: 16
// arg: buffer int 1 fill=values(3) name=n
// arg: buffer float 16 fill=zero name=out
// expect: none
// oclgrind: fatal Oclgrind 21.10's uninitialised-value plugin stops with a fatal error (Uninitialized.cpp:1805) on this 2-D local tile
__kernel void rows(__global const int *n, __global float *out) {
  __local float t[4][4];
  int i = get_local_id(0);
  t[i / 4][i % 4] = i;
  barrier(CLK_LOCAL_MEM_FENCE);
  __local float *end = &t[i / 4][n[0] + 1];
  if (i < 12) out[i] = t[i / 4][n[0]] + (float)(end - &t[i / 4][0]);
}
