// Every work-item writes its own id into one shared local word: write-write race.
// kernel: last_writer
// global: 32   local: 32
// arg: buffer int 32 fill=zero name=out
// expect: data-race race=write-write memory=local scope=intra-group buffer=winner
__kernel void last_writer(__global int *out) {
  __local int winner;
  int l = get_local_id(0);
  winner = l;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[l] = winner;
}
