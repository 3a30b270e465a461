// Issue #12 M3: the host created `in` CL_MEM_READ_ONLY and the kernel increments it in place.
// A kernel write to a read-only memory object is undefined (OpenCL 3.0 5.2.1): a device may
// keep such buffers in read-only caches and the writes may be lost.
// kernel: bump
// global: 16   local: 16
// arg: buffer int 16 fill=iota name=in flags=read-only
// arg: buffer int 16 fill=zero name=out
// expect: invalid-access memory=global buffer=in count=16
__kernel void bump(__global int *in, __global int *out) {
  size_t i = get_global_id(0);
  out[i] = in[i]++;
}
