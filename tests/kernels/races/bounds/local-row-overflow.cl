// A 2-D local tile read past the end of a row: t[r][c] with c one past the row reads the
// next row's first element, inside the tile but past the row's array.
// kernel: rows
// global: 16   local: 16
// arg: buffer int 1 fill=values(4) name=n
// arg: buffer float 16 fill=zero name=out
// expect: out-of-bounds memory=local
// oclgrind: fatal Oclgrind 21.10's uninitialised-value plugin stops with a fatal error (Uninitialized.cpp:1805) on this 2-D local tile
__kernel void rows(__global const int *n, __global float *out) {
  __local float t[4][4];
  int i = get_local_id(0);
  t[i / 4][i % 4] = i;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < 12) out[i] = t[i / 4][n[0]];
}
