// Work-item 0 resets the counter with a plain store while others atomically increment it.
// kernel: reset
// global: 32   local: 32
// arg: buffer uint 1 fill=ones name=counter
// expect: data-race race=atomic-plain memory=global scope=intra-group buffer=counter
__kernel void reset(__global uint *counter) {
  if (get_global_id(0) == 0)
    *counter = 0;
  else
    atomic_inc(counter);
}
