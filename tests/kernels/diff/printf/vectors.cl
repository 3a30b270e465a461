// printf with the OpenCL vector specifiers %v4hld, %v2hlf, %v4hhx (a vector specifier
// needs a length modifier: hl for 32-bit lanes).
// kernel: pfv
// global: 1   local: 1
// arg: buffer int 4 fill=values(1,-2,3,-4) name=x
// compare: exact stdout
__kernel void pfv(__global int *x) {
  int4 v = vload4(0, x);
  printf("v4hld %v4hld\n", v);
  printf("v2hlf %v2hlf\n", (float2)(0.5f, -1.25f));
  printf("v4hhx %v4hhx\n", (uchar4)(1, 0xab, 0x10, 0xff));
}
