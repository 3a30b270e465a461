// The NDRange is rounded up to 64 but the buffer holds 60 elements and the kernel has
// no bounds check.
// kernel: scale
// global: 64   local: 16
// arg: buffer float 60 fill=iota name=data
// arg: scalar int 60
// expect: out-of-bounds memory=global buffer=data
// oclgrind: out-of-bounds,uninitialized-read Oclgrind treats the value an invalid read returns as uninitialised and reports it again when it is stored
__kernel void scale(__global float *data, int n) {
  int i = get_global_id(0);
  data[i] = data[i] * 2.0f;
}
