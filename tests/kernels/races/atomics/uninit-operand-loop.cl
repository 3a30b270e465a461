// GPUVerify's atomics/forloop: every work-item adds an uninitialised value to B[0] and B[1]
// atomically, then writes B[tid] plainly, which races with the others' atomics on B[0] and
// B[1]. Passing the uninitialised v is undefined behaviour; a build that lets `opt` use
// it (noundef arguments) deletes the loop and its atomics, so nothing was reported.
// kernel: k
// global: 64   local: 64
// arg: buffer int 64 fill=iota name=B
// arg: scalar int 2
// twin: uninit-operand-loop-fixed.cl
// expect: data-race race=atomic-plain scope=intra-group memory=global buffer=B
// oclgrind: data-race,uninitialized-read Oclgrind also reports the uninitialised v stored to B (ShadowCL does not follow private scalars)
__kernel void k(__global int *B, int n) {
  int v;
  int tid = get_global_id(0);
  for (int i = 0; i < n; i++)
    v = atomic_add(B + i, v);
  B[tid] = v;
}
