// A struct copied whole through a pointer two bytes into a buffer: the copy (llvm.memcpy,
// OpCopyMemorySized) declares the struct's 4-byte alignment for both sides (OpenCL C 6.3:
// undefined behaviour otherwise). Each work-item's copy counts once.
// kernel: k
// global: 16   local: 16
// arg: buffer int 80 fill=iota name=in
// arg: buffer int 64 fill=zero name=out
// oclgrind: none Oclgrind does not check the alignment a memory copy (llvm.memcpy) declares
// expect: misaligned-access memory=global buffer=in count=16
struct rec { int a, b, c, d; };
__kernel void k(__global const char *in, __global struct rec *out) {
  size_t i = get_global_id(0);
  out[i] = *(__global const struct rec *)(in + 2 + 16 * i);
}
