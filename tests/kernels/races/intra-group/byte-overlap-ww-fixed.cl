// Twin of byte-overlap-ww.cl: 4-byte words at byte offsets i*4 touch disjoint bytes.
// kernel: overlap
// global: 8   local: 8
// arg: buffer uchar 40 fill=zero name=bytes
// expect: none
__kernel void overlap(__global uchar *bytes) {
  int i = get_global_id(0);
  vstore4((uchar4)(i, i, i, i), 0, bytes + 4 * i);
}
