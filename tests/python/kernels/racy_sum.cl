/* A racy sum, read from disk by tests/python/source_files.py and built after a line the
   application adds itself: reports must name this file and its own line numbers. */
__kernel void racy_sum(__global const int *in, __global int *total) {
  int v = in[get_global_id(0)];
  total[0] += v; /* every work-item, no atomics: a data race */
}
