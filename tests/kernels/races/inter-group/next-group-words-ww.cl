// Each work-item stores its own word and the word 32 further on, which belongs to an item
// of the next group: the groups' stores race. Every store is a lockstep operation over
// whole blocks of consecutive words (one shadow record per block while nothing is found).
// kernel: spill
// global: 128   local: 32
// arg: buffer int 160 fill=zero name=out
// expect: data-race race=write-write memory=global scope=inter-group buffer=out
__kernel void spill(__global int *out) {
  int i = get_global_id(0);
  out[i] = i;
  out[i + 32] = -i;
}
