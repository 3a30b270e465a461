// Work-items write 4-byte words at byte offsets i*2: neighbouring writes overlap by two
// bytes (per-byte detection needed).
// kernel: overlap
// global: 16   local: 16
// arg: buffer uchar 40 fill=zero name=bytes
// expect: data-race race=write-write memory=global scope=intra-group buffer=bytes
__kernel void overlap(__global uchar *bytes) {
  int i = get_global_id(0);
  vstore4((uchar4)(i, i, i, i), 0, bytes + 2 * i);
}
