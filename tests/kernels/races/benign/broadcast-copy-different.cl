// Like broadcast-copy-benign.cl but each work-item copies its own in[lid]: different values.
// kernel: broadcast
// global: 32   local: 32
// arg: buffer float 32 fill=iota(1) name=in
// arg: buffer float 1 fill=zero name=out
// checks: races,benign
// twin: broadcast-copy.cl
// expect: data-race race=write-write memory=global scope=intra-group buffer=out
__kernel void broadcast(__global const float *in, __global float *out) {
  out[0] = in[get_local_id(0)];
}
