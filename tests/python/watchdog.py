"""A kernel that spins on a value nobody changes ends at SHADOWCL_TIMEOUT: its event fails
with an error status, and the application goes on to run kernels that end."""
import time

import numpy as np
import pyopencl as cl

SRC = """
__kernel void spin(__global volatile int *flag, __global int *out) {
  int i = 0;
  while (flag[0] == 0) i++;
  out[get_global_id(0)] = i;
}
__kernel void add_one(__global int *out) { out[get_global_id(0)] += 1; }
"""

ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
prg = cl.Program(ctx, SRC).build()
mf = cl.mem_flags
flag = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=np.zeros(1, np.int32))
out = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(8, np.int32))

started = time.monotonic()
ev = prg.spin(q, (8,), (4,), flag, out)
try:
    ev.wait()
except cl.Error as e:
    print("wait:", e)
status = ev.command_execution_status
elapsed = time.monotonic() - started
assert status < 0, f"the spinning launch ended with status {status}"
assert elapsed < 60, f"the watchdog took {elapsed:.1f} s"

prg.add_one(q, (8,), (4,), out)
got = np.zeros(8, np.int32)
cl.enqueue_copy(q, got, out)
q.finish()
assert (got == 1).all(), got
print(f"spin ended after {elapsed:.1f} s with status {status}")
print("pyopencl watchdog: PASS on", ctx.devices[0].platform.name)
