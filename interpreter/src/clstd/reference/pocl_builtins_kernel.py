"""Runs builtins_f32.cl / builtins_f64.cl on PoCL and dumps inputs and outputs.

usage: /usr/bin/python3 pocl_builtins_kernel.py builtins_f32.cl f32 out.bin
The dump is x, y (float or double), k (int), o (N*100 floats/doubles), oi (N*16 ints).
"""
import sys
import numpy as np
import pyopencl as cl

src, kind, dump = sys.argv[1], sys.argv[2], sys.argv[3]
ft = np.float32 if kind == "f32" else np.float64
plat = [p for p in cl.get_platforms() if "Portable" in p.name][0]
ctx = cl.Context([plat.get_devices()[0]])
q = cl.CommandQueue(ctx)
N, NO, NI = 64, 100, 16
rng = np.random.default_rng(3)
x = rng.uniform(-5, 5, N).astype(ft)
y = rng.uniform(-3, 3, N).astype(ft)
k = rng.integers(-10, 11, N).astype(np.int32)
prg = cl.Program(ctx, open(src).read()).build()
mf = cl.mem_flags
bx, by, bk = [cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a) for a in (x, y, k)]
o = np.zeros(N * NO, ft)
oi = np.zeros(N * NI, np.int32)
bo = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=o)
boi = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=oi)
prg.t(q, (N,), None, bx, by, bk, bo, boi)
cl.enqueue_copy(q, o, bo)
cl.enqueue_copy(q, oi, boi)
q.finish()
with open(dump, "wb") as f:
    for a in (x, y, k, o, oi):
        a.tofile(f)
