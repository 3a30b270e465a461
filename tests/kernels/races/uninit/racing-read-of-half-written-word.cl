// Issue #11 item 9: one access that is both an uninitialised read and a data race. Item 1 of
// each group writes only the low byte of word[0]; item 0 reads the whole int. The three high
// bytes are never written (uninitialised under every order) and the low byte races with item
// 1's write (under every order). Neither finding may hide the other.
// kernel: half_written
// global: 64   local: 32
// arg: local int 1
// arg: buffer int 64 fill=zero name=out
// expect: data-race race=read-write memory=local scope=intra-group buffer=word
// expect: uninitialized-read memory=local buffer=word
__kernel void half_written(__local int *word, __global int *out) {
  size_t i = get_local_id(0);
  if (i == 1)
    *(__local char *)word = 7;
  if (i == 0)
    out[get_group_id(0)] = *word;
}
