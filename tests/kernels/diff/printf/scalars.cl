// printf of ints, unsigned, hex, octal, chars, strings and floats from one work-item.
// kernel: pf
// global: 1   local: 1
// arg: buffer int 1 fill=values(42) name=x
// compare: exact stdout
__kernel void pf(__global int *x) {
  int v = x[0];
  printf("int %d neg %d unsigned %u\n", v, -v, (uint)v);
  printf("hex %x %X %08x oct %o\n", v * 1000, v * 1000, v, v);
  printf("char %c string %s width [%5d] [%-5d]\n", 'A' + v % 26, "shadow", v, v);
  printf("float %f %.3f %e %g\n", 1.5f * v, 3.14159f, 12345.678f, 0.0001f);
  printf("long %ld percent %%\n", (long)v << 40);
}
