// Twin of struct-copy-unwritten-field.cl, and issue #12's M6: every field is written, so
// copying the struct (its padding bytes too, never written) and reading its fields is clean.
// Copying padding is not reading it.
// kernel: copy_rec
// global: 4   local: 4
// arg: local int 4
// arg: buffer int 12 fill=zero name=out
// expect: none
struct rec { char tag; int value; char flag; };
__kernel void copy_rec(__local struct rec *tmp, __global struct rec *out) {
  struct rec r;
  r.tag = 1;
  r.value = 2;
  r.flag = 3;
  if (get_local_id(0) == 0) *tmp = r;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 1) *out = *tmp;
}
