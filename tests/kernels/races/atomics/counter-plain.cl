// Twin of counter.cl with a plain read-modify-write: a race between work-items.
// kernel: count
// global: 256   local: 64
// arg: buffer uint 1 fill=zero name=counter
// twin: counter.cl
// schedule-dependent: the values stored depend on the race's outcome, so whether an item's write stores the value already there (a benign write-write pair, hidden by default) differs between schedules
// expect: data-race memory=global buffer=counter
__kernel void count(__global uint *counter) {
  *counter = *counter + 1;
}
