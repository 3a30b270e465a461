// Only atomics touch the counter: no race.
// kernel: count
// global: 256   local: 64
// arg: buffer uint 1 fill=zero name=counter
// expect: none
__kernel void count(__global uint *counter) {
  atomic_inc(counter);
}
