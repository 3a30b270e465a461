// pow, pown, powr, rootn (OpenCL: 16 ulp).
// kernel: powers
// global: 128   local: 32
// arg: buffer float 128 fill=random(32,0.1,4) name=x
// arg: buffer float 128 fill=random(33,-6,6) name=y
// arg: buffer float 512 fill=zero name=out
// compare: ulp=16 out
__kernel void powers(__global const float *x, __global const float *y, __global float *out) {
  int i = get_global_id(0);
  out[4 * i + 0] = pow(x[i], y[i]);
  out[4 * i + 1] = pown(x[i], (int)y[i]);
  out[4 * i + 2] = powr(x[i], y[i]);
  out[4 * i + 3] = rootn(x[i], 1 + i % 5);
}
