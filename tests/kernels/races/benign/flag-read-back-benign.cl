// Every work-item sets a local flag to 1 and reads it back in the same barrier interval:
// it reads 1 whichever other store lands first, since it stored 1 itself and so does every
// other store. The reads race only with stores of what the reader stored: benign, as the
// stores are among themselves.
// kernel: group_done
// global: 64   local: 32
// arg: buffer int 64 fill=zero name=out
// checks: races,benign
// twin: flag-read-back.cl
// expect: benign-race race=write-write memory=local scope=intra-group buffer=done
// expect: benign-race race=read-write memory=local scope=intra-group buffer=done
__kernel void group_done(__global int *out) {
  __local int done;
  if (get_local_id(0) == 0) done = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  done = 1;
  out[get_global_id(0)] = done;
}
