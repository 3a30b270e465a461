// atomic_min / atomic_max on int and uint words.
// kernel: extremes
// global: 256   local: 64
// arg: buffer int 256 fill=random(61) name=in
// arg: buffer int 4 fill=values(2147483647,-2147483648,-1,0) name=mm
// compare: exact mm
__kernel void extremes(__global const int *in, __global int *mm) {
  int v = in[get_global_id(0)];
  atomic_min(&mm[0], v);
  atomic_max(&mm[1], v);
  atomic_min((__global uint *)&mm[2], (uint)v);
  atomic_max((__global uint *)&mm[3], (uint)v);
}
