// +, -, * are exact; / is within 2.5 ulp in OpenCL (compared at 3).
// kernel: fdiv
// global: 128   local: 32
// arg: buffer float 128 fill=random(40,-100,100) name=a
// arg: buffer float 128 fill=random(41,0.5,50) name=b
// arg: buffer float 384 fill=zero name=exact
// arg: buffer float 128 fill=zero name=quot
// compare: exact exact
// compare: ulp=3 quot
__kernel void fdiv(__global const float *a, __global const float *b, __global float *exact, __global float *quot) {
  int i = get_global_id(0);
  float x = a[i], y = b[i];
  exact[3 * i + 0] = x + y;
  exact[3 * i + 1] = x - y;
  exact[3 * i + 2] = x * y;
  quot[i] = x / y;
}
