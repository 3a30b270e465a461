"""The HTML report's browser test (tests/tests/html_report.rs): runs the two kernels of
tests/python/kernels/two_bugs.cl, one with a data race, one reading a buffer nothing wrote,
so the report has findings of two kinds in two kernels."""
import os

import numpy as np
import pyopencl as cl

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "kernels", "two_bugs.cl")) as f:
    src = f.read()

ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
prg = cl.Program(ctx, src).build()
mf = cl.mem_flags
n = 64
data = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=np.arange(n, dtype=np.int32))
total = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(1, np.int32))
prg.racy_sum(q, (n,), (n,), data, total)
never_written = cl.Buffer(ctx, mf.READ_ONLY, size=4 * n)
out = cl.Buffer(ctx, mf.WRITE_ONLY, size=4 * n)
prg.scale(q, (n,), (16,), never_written, out, np.int32(n))
q.finish()
print("pyopencl html report: PASS on", ctx.devices[0].platform.name)
