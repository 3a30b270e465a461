// Issue #11 R7: barrier flags computed at run time (llvm-spirv-15 cannot translate them; the
// compile driver rewrites the call). Item 0 fences local memory, the others only global, so
// the barrier does not order p[0]: item 1's write races with the others' reads. Different
// flags at one barrier are divergence (OpenCL 2.0 asks the same of every work-item), and p[0]
// is read before anyone wrote it, too.
// kernel: var_fence
// global: 128   local: 64
// arg: local int 1
// arg: buffer int 128 fill=zero name=out
// expect: data-race memory=local scope=intra-group buffer=p
// expect: uninitialized-read memory=local buffer=p
// expect: barrier-divergence
// oclgrind: barrier-divergence,uninitialized-read Oclgrind orders local memory when any work-item's flags name it
__kernel void var_fence(__local int *p, __global int *out) {
  int flags = get_local_id(0) == 0 ? CLK_LOCAL_MEM_FENCE : CLK_GLOBAL_MEM_FENCE;
  int v = p[0];
  barrier(flags);
  if (get_local_id(0) == 1)
    p[0] = v + 1;
  out[get_global_id(0)] = v;
}
