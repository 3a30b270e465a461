// Twin of mixed-width-rw.cl: group 1 only reads the high halves of the ints group 0 reads
// whole. Reads do not race, whichever width and whichever record (word or byte) holds them.
// kernel: halves
// global: 32   local: 16
// arg: buffer int 16 fill=iota name=data
// arg: buffer int 32 fill=zero name=out
// expect: none
__kernel void halves(__global int *data, __global int *out) {
  int i = get_global_id(0), l = get_local_id(0);
  if (get_group_id(0) == 0)
    out[i] = data[l];
  else
    out[i] = ((__global short *)data)[2 * l + 1];
}
