// fmin, fmax, fabs, copysign, fdim, maxmag, minmag, step, sign.
// kernel: mm
// global: 64   local: 64
// arg: buffer float 64 fill=random(38,-5,5) name=a
// arg: buffer float 64 fill=random(39,-5,5) name=b
// arg: buffer float 576 fill=zero name=out
// compare: exact out
__kernel void mm(__global const float *a, __global const float *b, __global float *out) {
  int i = get_global_id(0);
  float x = a[i], y = b[i];
  __global float *p = out + 9 * i;
  p[0] = fmin(x, y);
  p[1] = fmax(x, y);
  p[2] = fabs(x);
  p[3] = copysign(x, y);
  p[4] = fdim(x, y);
  p[5] = maxmag(x, y);
  p[6] = minmag(x, y);
  p[7] = step(y, x);
  p[8] = sign(x);
}
