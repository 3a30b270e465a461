"""Vector add through pyopencl on the platform named by PYOPENCL_CTX (ShadowCL in the tests).

Run with Debian's /usr/bin/python3 (python3-pyopencl, python3-numpy). Exits non-zero with a
message on any mismatch."""
import os
import sys

import numpy as np
import pyopencl as cl

SRC = """
__kernel void vadd(__global const float *a, __global const float *b, __global float *c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}
__kernel void square(__global int *x) {
  size_t i = get_global_id(0);
  x[i] = x[i] * x[i];
}
"""


def main():
    want = os.environ.get("PYOPENCL_CTX", "")
    ctx = cl.create_some_context(interactive=False)
    platform = ctx.devices[0].platform
    if want and want.lower() not in platform.name.lower():
        sys.exit(f"PYOPENCL_CTX={want} picked platform {platform.name!r}")
    queue = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, SRC).build()

    n = 4096
    rng = np.random.default_rng(7)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    mf = cl.mem_flags
    a_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    b_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
    c_buf = cl.Buffer(ctx, mf.WRITE_ONLY, a.nbytes)
    prg.vadd(queue, (n,), None, a_buf, b_buf, c_buf)
    c = np.empty_like(a)
    cl.enqueue_copy(queue, c, c_buf)
    if not np.array_equal(c, a + b):
        bad = np.nonzero(c != a + b)[0]
        sys.exit(f"vadd mismatch at {bad[:10]}: {c[bad[:10]]} vs {(a + b)[bad[:10]]}")

    x = np.arange(-512, 512, dtype=np.int32)
    x_buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=x)
    prg.square(queue, x.shape, (64,), x_buf)
    y = np.empty_like(x)
    cl.enqueue_copy(queue, y, x_buf)
    queue.finish()
    if not np.array_equal(y, x * x):
        sys.exit("square mismatch")

    print(f"pyopencl vadd: PASS on {platform.name}")


if __name__ == "__main__":
    main()
