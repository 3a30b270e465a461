// A stencil whose border items leave early behind a chain of compares, as image filters do,
// but clear their own element first: their interior neighbours read it. The lanes stay apart
// for many rounds of forward-only ops (under auto the group stays in lockstep; a loop apart
// would hand it to the per-item executor): the race must be found alike under every schedule.
// kernel: blur
// global: 64   local: 64
// arg: buffer float 64 fill=iota name=data
// arg: buffer float 64 fill=zero name=out
// twin: border-chain-rw-fixed.cl
// expect: data-race race=read-write memory=global scope=intra-group buffer=data lines=14/17
__kernel void blur(__global float *data, __global float *out) {
  int x = get_global_id(0), n = get_global_size(0);
  if (x == 0 || x == n - 1 || x == 17 || x == n / 2 + 1 || (x * 7) % 16 == 3) {
    data[x] = 0.0f;
    return;
  }
  out[x] = 0.25f * (data[x - 1] + data[x + 1]) + 0.5f * data[x];
}
