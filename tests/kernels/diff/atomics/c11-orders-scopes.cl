// The OpenCL C 3.0 atomics and fences on global and local memory, every order and scope.
// kernel: all_atomics
// options: -cl-std=CL3.0
// global: 64   local: 64
// arg: buffer int 9 fill=zero name=gi
// arg: buffer long 4 fill=zero name=gl
// arg: buffer float 2 fill=zero name=gf
// arg: buffer int 64 fill=zero name=out
// compare: exact gi gl gf out
__kernel void all_atomics(__global atomic_int *gi, __global atomic_long *gl, __global atomic_float *gf,
                          __global int *out) {
  __local atomic_int li;
  __local atomic_flag lf;
  int l = get_local_id(0);
  if (l == 0) { atomic_init(&li, 0); atomic_flag_clear_explicit(&lf, memory_order_relaxed, memory_scope_work_group); }
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_fetch_add(&gi[0], 1);
  atomic_fetch_sub_explicit(&gi[1], 2, memory_order_acq_rel, memory_scope_device);
  atomic_fetch_or(&gi[2], 1 << (l & 15));
  atomic_fetch_xor(&gi[3], 1);
  atomic_fetch_and(&gi[4], ~0);
  atomic_fetch_min(&gi[5], -l);
  atomic_fetch_max(&gi[6], l);
  atomic_fetch_add(&gl[0], (long)l << 33);
  atomic_fetch_min_explicit(&gl[1], -(long)l, memory_order_relaxed, memory_scope_device);
  atomic_fetch_max(&gl[2], (long)l);
  atomic_store_explicit(&gf[0], 1.5f, memory_order_release, memory_scope_device);
  float old = atomic_exchange(&gf[1], 2.5f);
  int e = 0;
  atomic_compare_exchange_strong(&gi[7], &e, 7);
  int e2 = 7;
  while (!atomic_compare_exchange_weak_explicit(&gi[7], &e2, e2, memory_order_seq_cst, memory_order_relaxed, memory_scope_device)) {}
  // Exactly one work-item finds the flag clear (which one is the schedule's).
  if (!atomic_flag_test_and_set(&lf))
    atomic_fetch_add(&gi[8], 1);
  atomic_fetch_add_explicit(&li, 1, memory_order_relaxed, memory_scope_work_group);
  atomic_work_item_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_work_group);
  barrier(CLK_LOCAL_MEM_FENCE);
  __global atomic_int *gp = &gi[0];
  int seen = atomic_load(gp);
  out[l] = (atomic_load_explicit(&li, memory_order_acquire, memory_scope_work_group) == 64 ? 2 : 0) + (old == 0.0f || old == 2.5f ? 4 : 0) + (seen > 0 ? 8 : 0) + (e2 == 7 ? 16 : 0);
}
