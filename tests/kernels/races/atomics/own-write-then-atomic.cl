// Issue #11 R10: item 0's plain write of the counter races with the other items' atomic
// decrements; item 0's own decrement afterwards must not make the record forget the write.
// kernel: reset_then_count
// global: 64   local: 64
// arg: buffer int 1 fill=zero name=counter
// expect: data-race race=atomic-plain memory=global scope=intra-group buffer=counter
__kernel void reset_then_count(__global int *counter) {
  if (get_global_id(0) == 0)
    *counter = 100;
  atomic_dec(counter);
}
