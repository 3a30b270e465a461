"""Reports name the application's own kernel file: the kernel is read from
tests/python/kernels/racy_sum.cl and built after a line of the application's own, so the
program's lines are the file's shifted by one; SHADOWCL_SOURCE_DIR names the folder."""
import os

import numpy as np
import pyopencl as cl

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "kernels", "racy_sum.cl")) as f:
    src = "#define UNUSED_BY_THE_KERNEL 1\n" + f.read()

ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
prg = cl.Program(ctx, src).build()
mf = cl.mem_flags
data = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=np.arange(64, dtype=np.int32))
total = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(1, np.int32))
prg.racy_sum(q, (64,), (64,), data, total)
q.finish()
print("pyopencl source files: PASS on", ctx.devices[0].platform.name)
