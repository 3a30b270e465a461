"""A compute queue and a transfer queue, as applications overlap copies with kernels, through
pyopencl on the platform named by PYOPENCL_CTX (ShadowCL in the tests).

The read of `a` is enqueued on the transfer queue without waiting for the kernel that writes
`a`: a race between a kernel and a host command, which the report must name. The read of `b`
waits for its kernel's event: no race. Exits non-zero on a wrong result."""
import os
import sys

import numpy as np
import pyopencl as cl

SRC = """
__kernel void produce_a(__global int *a) { a[get_global_id(0)] = (int)get_global_id(0) * 3; }
__kernel void produce_b(__global int *b) { b[get_global_id(0)] = (int)get_global_id(0) * 5; }
"""


def main():
    want = os.environ.get("PYOPENCL_CTX", "")
    ctx = cl.create_some_context(interactive=False)
    platform = ctx.devices[0].platform
    if want and want.lower() not in platform.name.lower():
        sys.exit(f"PYOPENCL_CTX={want} picked platform {platform.name!r}")
    compute = cl.CommandQueue(ctx)
    transfer = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, SRC).build()
    n = 256
    mf = cl.mem_flags
    a_buf = cl.Buffer(ctx, mf.READ_WRITE, n * 4)
    b_buf = cl.Buffer(ctx, mf.READ_WRITE, n * 4)
    a = np.empty(n, np.int32)
    b = np.empty(n, np.int32)

    prg.produce_a(compute, (n,), (64,), a_buf)
    # Racy: nothing orders this read after produce_a.
    cl.enqueue_copy(transfer, a, a_buf, is_blocking=False)

    done = prg.produce_b(compute, (n,), (64,), b_buf)
    cl.enqueue_copy(transfer, b, b_buf, is_blocking=False, wait_for=[done])

    compute.finish()
    transfer.finish()
    if not np.array_equal(b, np.arange(n, dtype=np.int32) * 5):
        sys.exit(f"b is wrong: {b[:8]}")
    print(f"pyopencl host transfers: PASS on {platform.name}")


if __name__ == "__main__":
    main()
