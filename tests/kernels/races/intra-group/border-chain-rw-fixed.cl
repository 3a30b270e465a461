// Twin of border-chain-rw: the border items copy their element to the output instead of
// clearing it, so nothing the interior reads is written.
// kernel: blur
// global: 64   local: 64
// arg: buffer float 64 fill=iota name=data
// arg: buffer float 64 fill=zero name=out
// expect: none
__kernel void blur(__global float *data, __global float *out) {
  int x = get_global_id(0), n = get_global_size(0);
  if (x == 0 || x == n - 1 || x == 17 || x == n / 2 + 1 || (x * 7) % 16 == 3) {
    out[x] = data[x];
    return;
  }
  out[x] = 0.25f * (data[x - 1] + data[x + 1]) + 0.5f * data[x];
}
