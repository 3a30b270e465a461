// Issue #11 R3: the helper's load has no use, so an optimiser drops it after inlining; item i
// reads p[i] while item i-1 writes it. p[0] is never written: an uninitialised read too.
// kernel: poke
// global: 128   local: 64
// arg: local int 65
// expect: data-race race=read-write memory=local scope=intra-group buffer=p
// expect: uninitialized-read memory=local buffer=p
// oclgrind: none Oclgrind checks its own optimised build, which drops the unused load
int peek(__local int *p) { return p[get_local_id(0)]; }

__kernel void poke(__local int *p) {
  peek(p);
  p[get_local_id(0) + 1] = 1;
}
