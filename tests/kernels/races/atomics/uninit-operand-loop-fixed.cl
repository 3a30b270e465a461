// Twin of uninit-operand-loop without the race: the plain writes go past the two elements
// the atomics update (v is still uninitialised: private scalars are not followed).
// kernel: k
// global: 64   local: 64
// arg: buffer int 66 fill=iota name=B
// arg: scalar int 2
// expect: none
// oclgrind: uninitialized-read Oclgrind reports the uninitialised v stored to B (ShadowCL does not follow private scalars)
__kernel void k(__global int *B, int n) {
  int v;
  int tid = get_global_id(0);
  for (int i = 0; i < n; i++)
    v = atomic_add(B + i, v);
  B[tid + 2] = v;
}
