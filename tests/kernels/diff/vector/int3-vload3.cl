// 3-lane vectors: vload3/vstore3 on packed data and int3 arithmetic.
// kernel: i3
// global: 32   local: 32
// arg: buffer int 96 fill=random(51,-1000,1000) name=a
// arg: buffer int 96 fill=zero name=out
// compare: exact out
__kernel void i3(__global const int *a, __global int *out) {
  int i = get_global_id(0);
  int3 v = vload3(i, a);
  int3 w = vload3((i + 1) % 32, a);
  int3 r = v * 3 - w.zxy + (int3)(i, 2 * i, 3 * i);
  r.y = r.x ^ r.z;
  vstore3(r, i, out);
}
