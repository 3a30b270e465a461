// Reads a __local argument nobody wrote. (A pointer argument, not a kernel-scope array:
// clang folds loads from a never-stored kernel-scope __local array to undef.)
// kernel: leak
// global: 16   local: 16
// arg: buffer int 16 fill=zero name=out
// arg: local int 16
// expect: uninitialized-read memory=local buffer=tmp
__kernel void leak(__global int *out, __local int *tmp) {
  int l = get_local_id(0);
  out[l] = tmp[l] + 1;
}
