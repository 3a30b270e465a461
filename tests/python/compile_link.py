"""Separate compilation under the checking build, as pyopencl's own test_compile_link does:
a program of one function compiled apart, a kernel calling it compiled apart, both linked."""
import numpy as np
import pyopencl as cl

ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
sink = cl.Program(ctx, "void value_sink(float x) {}\n").compile()
main = cl.Program(ctx, """
void value_sink(float x);
__kernel void experiment(__global float *out) {
  value_sink(3.1415f + get_global_id(0));
  out[get_global_id(0)] = 1.0f;
}
""").compile()
linked = cl.link_program(ctx, [sink, main])
out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 4 * 128)
linked.experiment(q, (128,), None, out)
got = np.zeros(128, np.float32)
cl.enqueue_copy(q, got, out)
q.finish()
assert (got == 1).all(), got
print("pyopencl compile and link: PASS on", ctx.devices[0].platform.name)
