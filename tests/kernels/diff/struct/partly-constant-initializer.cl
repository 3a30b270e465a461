// A local struct initialised from a large constant part and a run-time part (a pointer to
// another local), then indexed at run time so that it stays in memory: clang keeps the
// constant part as a private module variable (`@constinit`) that it copies into the
// struct, which ShadowCL once refused to build ("module variable constinit in storage
// class Function"; Oclgrind's test memcheck/casted_static_array).
// kernel: k
// global: 32   local: 16
// arg: buffer int 32 fill=iota name=in
// arg: buffer int 32 fill=zero name=out
// compare: exact out
union U { short f0; int f3; };
struct S { union U g[5][7][2]; int *p[3]; };
__kernel void k(__global const int *in, __global int *out) {
  int x = in[get_global_id(0)];
  struct S s = {{{{{0x1234}}}}, {&x}};
  int i = x % 5, j = x % 7;
  s.g[i][j][1].f3 += x * 3;
  out[get_global_id(0)] = s.g[0][0][0].f0 + s.g[i][j][1].f3 + *s.p[0] + s.g[1][j][1].f3;
}
