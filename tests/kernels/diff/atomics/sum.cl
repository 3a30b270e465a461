// atomic_add / atomic_sub of data-dependent values: the total is order-independent.
// kernel: total
// global: 256   local: 32
// arg: buffer int 256 fill=random(60,-1000,1000) name=in
// arg: buffer int 2 fill=zero name=acc
// compare: exact acc
__kernel void total(__global const int *in, __global int *acc) {
  int v = in[get_global_id(0)];
  atomic_add(&acc[0], v);
  atomic_sub(&acc[1], v * 2);
}
