// Per-group histogram in local memory with atomic_inc, then merged into the global
// histogram with atomic_add.
// kernel: hist
// global: 512   local: 128
// arg: buffer uint 512 fill=random(62,0,15) name=keys
// arg: buffer uint 16 fill=zero name=bins
// arg: local uint 16
// compare: exact bins
__kernel void hist(__global const uint *keys, __global uint *bins, __local uint *lb) {
  int l = get_local_id(0);
  if (l < 16) lb[l] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&lb[keys[get_global_id(0)]]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < 16)
    atomic_add(&bins[l], lb[l]);
}
