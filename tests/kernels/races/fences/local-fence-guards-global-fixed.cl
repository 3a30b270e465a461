// Twin of local-fence-guards-global.cl: CLK_GLOBAL_MEM_FENCE orders the global accesses.
// kernel: exchange
// global: 32   local: 32
// arg: buffer int 32 fill=iota name=buf
// arg: buffer int 32 fill=zero name=out
// expect: none
__kernel void exchange(__global int *buf, __global int *out) {
  int i = get_global_id(0);
  buf[i] = i * 7;
  barrier(CLK_GLOBAL_MEM_FENCE);
  out[i] = buf[(i + 1) % 32];
}
