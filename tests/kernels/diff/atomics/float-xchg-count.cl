// atomic_xchg on float: every work-item swaps in its own value; the multiset of values
// seen is order-dependent, so only order-independent facts are compared: the number of
// exchanges and how many work-items saw the initial value (exactly one).
// kernel: swap
// global: 64   local: 16
// arg: buffer float 1 fill=values(-1) name=cell
// arg: buffer int 2 fill=zero name=res
// compare: exact res
__kernel void swap(__global float *cell, __global int *res) {
  int i = get_global_id(0);
  float old = atomic_xchg(cell, (float)i);
  atomic_inc(&res[0]);
  if (old == -1.0f)
    atomic_inc(&res[1]);
}
