// Twin of atomic-vs-plain-write.cl: the reset is an atomic_xchg.
// kernel: reset
// global: 32   local: 32
// arg: buffer uint 1 fill=ones name=counter
// expect: none
__kernel void reset(__global uint *counter) {
  if (get_global_id(0) == 0)
    atomic_xchg(counter, 0u);
  else
    atomic_inc(counter);
}
