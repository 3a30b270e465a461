/* Two kernels with one bug each, read from disk by tests/python/html_report.py for the HTML
   report's browser test. The `<` and `&&` check that the page escapes kernel source. */
__kernel void racy_sum(__global const int *in, __global int *total) {
  int v = in[get_global_id(0)];
  if (v < 0 && v > -100)
    v = -v;
  int sum = total[0]; /* every work-item reads, adds and writes back, */
  total[0] = sum + v; /* without atomics: a data race */
}

__kernel void scale(__global const int *in, __global int *out, const int n) {
  int i = get_global_id(0);
  if (i < n && i >= 0)
    out[i] = 2 * in[i]; /* `in` was never written: an uninitialised read */
}
