// A struct whose `value` field is never written is copied whole to local memory; another
// work-item then reads that field. The copy itself is no use of the undefined bytes (the
// padding is copied too); the read of `value` is.
// kernel: copy_rec
// global: 4   local: 4
// arg: local int 4
// arg: buffer int 4 fill=zero name=out
// expect: uninitialized-read memory=local buffer=tmp
struct rec { char tag; int value; char flag; };
__kernel void copy_rec(__local struct rec *tmp, __global int *out) {
  struct rec r;
  r.tag = 1;
  r.flag = 3;
  if (get_local_id(0) == 0) *tmp = r;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 1) out[0] = tmp->value + tmp->tag;
}
