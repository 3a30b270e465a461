"""The device's OpenCL C as an application sees it: the versions and features its queries
list are what builds and runs. OpenCL C 2.0, which it does not list, is refused
(CL_INVALID_BUILD_OPTIONS, with a log line naming the versions it has); at OpenCL C 3.0 the
generic address space (to_global/to_local/to_private/get_fence) and program-scope global
variables, which it lists, compute what the specification says."""
import numpy as np
import pyopencl as cl

ctx = cl.create_some_context(interactive=False)
dev = ctx.devices[0]
q = cl.CommandQueue(ctx)

versions = {(v.version >> 22, (v.version >> 12) & 0x3FF)
            for v in dev.get_info(cl.device_info.OPENCL_C_ALL_VERSIONS)}
assert versions == {(1, 0), (1, 1), (1, 2), (3, 0)}, versions
features = {f.name for f in dev.get_info(cl.device_info.OPENCL_C_FEATURES)}
for f in ["__opencl_c_generic_address_space", "__opencl_c_program_scope_global_variables"]:
    assert f in features, (f, features)

TRIVIAL = "__kernel void k(__global int *p) { p[0] = 1; }"
try:
    cl.Program(ctx, TRIVIAL).build(options=["-cl-std=CL2.0"])
    raise AssertionError("-cl-std=CL2.0 built on a device that does not list OpenCL C 2.0")
except cl.RuntimeError as e:
    assert e.code == cl.status_code.INVALID_BUILD_OPTIONS, e
    assert "1.0, 1.1, 1.2 and 3.0" in str(e), e

GENERIC = """
int where(int *p) {
  int r = 0;
  if (to_global(p)) r |= 1;
  if (to_local(p)) r |= 2;
  if (to_private(p)) r |= 4;
  cl_mem_fence_flags f = get_fence(p);
  if (f == CLK_GLOBAL_MEM_FENCE) r |= 8;
  if (f == CLK_LOCAL_MEM_FENCE) r |= 16;
  return r;
}
void add(int *p, int v) { *p += v; }
global int table[] = {7, 42, 99};
global int *second = &table[1];
__kernel void k(__global int *out) {
  __local int tile[32];
  int mine = 5;
  int l = get_local_id(0);
  tile[l] = l;
  barrier(CLK_LOCAL_MEM_FENCE);
  add(&tile[l], 100);
  add(&mine, 1);
  int g = get_global_id(0);
  out[2 * g] = where(&out[g]) * 1000000 + where(&tile[l]) * 10000 + where(&mine) * 100
      + tile[l] + mine;
  out[2 * g + 1] = table[g % 3] + *second + (where(table) == 9);
}
"""
out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * 128)
cl.Program(ctx, GENERIC).build(options=["-cl-std=CL3.0"]).k(q, (64,), (32,), out)
got = np.zeros(128, np.int32)
cl.enqueue_copy(q, got, out)
q.finish()
l = np.arange(64) % 32
# global: to_global, global fence (1 | 8); local: to_local, local fence (2 | 16); private:
# to_private, no fence (4).
assert (got[0::2] == 9 * 1000000 + 18 * 10000 + 4 * 100 + l + 100 + 6).all(), got[0::2]
assert (got[1::2] == np.array([7, 42, 99])[np.arange(64) % 3] + 42 + 1).all(), got[1::2]
print("pyopencl OpenCL C 3.0: PASS on", dev.platform.name)
