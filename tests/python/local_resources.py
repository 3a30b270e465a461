"""The resource check of a launch is the application's build's, from source or from the
program's binary: a 3.9 MB __local array read only into a dead variable is deleted by the
build the application asked for, so the kernel needs no local memory and runs, as on other
platforms; built with -cl-opt-disable it keeps the array, and the launch is refused with
CL_OUT_OF_RESOURCES, as the device's 64 KiB cannot hold it."""
import numpy as np
import pyopencl as cl

SRC = """
__kernel void k(__global int *out) {
  __local int A[100][99][98];
  int dead = A[1][2][3];
  out[get_global_id(0)] += 1;
}
"""
ctx = cl.create_some_context(interactive=False)
dev = ctx.devices[0]
q = cl.CommandQueue(ctx)
host = np.arange(64, dtype=np.int32)
out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)

built = cl.Program(ctx, SRC).build()
# The program's binary keeps the application's build's figure (pyopencl caches binaries).
again = cl.Program(ctx, [dev], [built.get_info(cl.program_info.BINARIES)[0]]).build()
for n, program in enumerate([built, again], start=1):
    fits = program.k
    local = fits.get_work_group_info(cl.kernel_work_group_info.LOCAL_MEM_SIZE, dev)
    assert local <= dev.local_mem_size, (local, dev.local_mem_size)
    fits(q, (64,), (32,), out)
    got = np.zeros(64, np.int32)
    cl.enqueue_copy(q, got, out)
    q.finish()
    assert (got == host + n).all(), got

kept = cl.Program(ctx, SRC).build(options="-cl-opt-disable").k
local = kept.get_work_group_info(cl.kernel_work_group_info.LOCAL_MEM_SIZE, dev)
assert local == 4 * 100 * 99 * 98, local
try:
    kept(q, (64,), (32,), out)
    q.finish()
    raise AssertionError("a launch needing 3.9 MB of local memory ran")
except cl.Error as e:
    assert e.code == cl.status_code.OUT_OF_RESOURCES, e
print("pyopencl local resources: PASS on", dev.platform.name)
