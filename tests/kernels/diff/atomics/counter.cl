// A global counter incremented by every work-item with atomic_inc / atomic_dec.
// kernel: count
// global: 512   local: 64
// arg: buffer uint 2 fill=values(0,1000) name=c
// compare: exact c
__kernel void count(__global uint *c) {
  atomic_inc(&c[0]);
  if (get_global_id(0) % 3 == 0)
    atomic_dec(&c[1]);
}
