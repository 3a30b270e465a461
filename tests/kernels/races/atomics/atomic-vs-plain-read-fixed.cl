// Twin of atomic-vs-plain-read.cl: the reader uses an atomic load (atomic_add of 0).
// kernel: peek
// global: 32   local: 32
// arg: buffer int 1 fill=zero name=total
// arg: buffer int 1 fill=zero name=out
// expect: none
__kernel void peek(__global int *total, __global int *out) {
  int i = get_global_id(0);
  atomic_add(total, i);
  if (i == 5)
    out[0] = atomic_add(total, 0);
}
