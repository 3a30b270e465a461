// Racy twin of private-lanes-written.cl: the imaginary lane of the double accumulators
// is never written, and its sum is stored: an uninitialised read of private memory,
// reported at the use, not at the lane stores that come before it.
// kernel: accumulate
// global: 64   local: 16
// arg: buffer float 128 fill=iota name=a
// arg: buffer double 128 fill=iota name=d
// arg: buffer float 256 fill=zero name=out
// arg: scalar int 4
// compile: app
// requires: fp64
// twin: private-lanes-written.cl
// expect: uninitialized-read memory=private count=256
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void accumulate(__global const float2 *a, __global const double2 *d,
                         __global float4 *out, int n) {
  float2 acc[4];
  double2 dacc[4];
  float4 wide;
  for (int i = 0; i < n; i++) {
    acc[i].x = 0.0f;
    acc[i].y = 0.0f;
  }
  for (int i = 0; i < n; i++) dacc[i].x = 0.0;
  wide.x = 1.0f;
  wide.y = 2.0f;
  wide.z = 3.0f;
  wide.w = 4.0f;
  size_t g = get_global_id(0);
  for (int i = 0; i < n; i++) {
    float2 v = a[(g + i) % 64];
    acc[i].x += v.x * v.x - v.y * v.y;
    acc[i].y += 2.0f * v.x * v.y;
    dacc[i] += d[(g + i) % 64];
  }
  float2 s = acc[0] + acc[1] + acc[2] + acc[3];
  double2 t = dacc[0] + dacc[1] + dacc[2] + dacc[3];
  out[g] = wide + (float4)(s.x, s.y, (float)t.x, (float)t.y);
}
