// A while loop with a barrier whose exit depends on per-work-item data.
// kernel: converge
// global: 16   local: 16
// arg: buffer int 16 fill=random(3,1,5) name=steps
// arg: buffer int 16 fill=zero name=out
// expect: barrier-divergence
__kernel void converge(__global const int *steps, __global int *out) {
  int l = get_local_id(0);
  int left = steps[l];
  int n = 0;
  while (left > 0) {
    left--;
    n++;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[l] = n;
}
