// `const` is no promise that a kernel leaves its memory alone: each work-item reads its own
// element and its right neighbour's, then writes its own through a cast that drops `const`,
// racing with its left neighbour's read. Reads of memory no work-item of the launch writes
// may leave their records as they are (a stencil's neighbour reads), so the checker must not
// take `const` for that proof: under lockstep (every read before any write) data[i]'s record
// would keep item i's own read, and item i's write would find nothing to race with.
// kernel: smooth
// global: 32   local: 32
// arg: buffer int 33 fill=iota name=data
// arg: buffer int 32 fill=zero name=out
// expect: data-race race=read-write memory=global scope=intra-group buffer=data
__kernel void smooth(__global const int *data, __global int *out) {
  int i = get_global_id(0);
  int own = data[i];
  int right = data[i + 1];
  out[i] = own + right;
  ((__global int *)data)[i] = own + right;
}
