// "Last work-group done" reduction (threadfence reduction) with a relaxed counter: each of
// 4 groups stores its partial sum and increments count; the group that sees count == 3 sums
// partial[]. Relaxed increments order nothing, so the last group's reads of the other
// groups' partial sums race with their writes.
// kernel: last_group_sum
// options: -cl-std=CL3.0
// oclgrind: unbuildable Oclgrind 21.10 builds no OpenCL C 3.0 ("cl_khr_fp64 and __opencl_c_fp64 are set to different values") and at -cl-std=CL2.0 has no C11 atomics (atomic_store_explicit undefined)
// global: 256   local: 64
// arg: buffer int 256 fill=iota name=in
// arg: buffer int 4 fill=zero name=partial
// arg: buffer int 1 fill=zero name=count
// arg: buffer int 1 fill=zero name=out
// arg: local int 64
// expect: data-race race=read-write memory=global scope=inter-group buffer=partial sync=relaxed-write
__kernel void last_group_sum(__global const int *in, __global int *partial,
                             __global atomic_int *count, __global int *out, __local int *s) {
  int l = get_local_id(0), g = get_group_id(0), n = get_num_groups(0);
  s[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l != 0)
    return;
  int t = 0;
  for (int k = 0; k < get_local_size(0); k++)
    t += s[k];
  partial[g] = t;
  // The group whose increment comes last sums every group's partial result.
  if (atomic_fetch_add_explicit(count, 1, memory_order_relaxed, memory_scope_device) == n - 1) {
    int sum = 0;
    for (int k = 0; k < n; k++)
      sum += partial[k];
    out[0] = sum;
  }
}
