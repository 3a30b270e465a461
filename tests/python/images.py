"""Images through pyopencl on the platform named by PYOPENCL_CTX (ShadowCL in the tests):
an RGBA float image from host memory, a kernel that samples it and writes another image,
and the result read back with enqueue_copy. Exits non-zero on any mismatch."""
import sys

import numpy as np
import pyopencl as cl

ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
dev = ctx.devices[0]
if not dev.image_support:
    sys.exit("no image support")
fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)
formats = cl.get_supported_image_formats(ctx, cl.mem_flags.READ_WRITE, cl.mem_object_type.IMAGE2D)
if not any(f.channel_order == fmt.channel_order and f.channel_data_type == fmt.channel_data_type
           for f in formats):
    sys.exit("RGBA/FLOAT is not among the supported formats")
a = np.arange(4 * 3 * 4, dtype=np.float32).reshape(3, 4, 4)
src = cl.Image(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, fmt, shape=(4, 3), hostbuf=a)
dst = cl.Image(ctx, cl.mem_flags.WRITE_ONLY, fmt, shape=(4, 3))
smp = cl.Sampler(ctx, False, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.NEAREST)
prg = cl.Program(ctx, """
__kernel void twice(__read_only image2d_t s, sampler_t smp, __write_only image2d_t d) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  write_imagef(d, p, 2.0f * read_imagef(s, smp, p));
}""").build()
prg.twice(q, (4, 3), None, src, smp, dst)
out = np.empty_like(a)
cl.enqueue_copy(q, out, dst, origin=(0, 0), region=(4, 3))
if not np.array_equal(out, 2 * a):
    sys.exit(f"mismatch:\n{out}\nwant\n{2 * a}")

# A packed RGB 565 image, when offered: write_imagef quantizes to 5/6/5 bits.
f565 = cl.ImageFormat(cl.channel_order.RGB, cl.channel_type.UNORM_SHORT_565)
if any(f.channel_order == f565.channel_order and f.channel_data_type == f565.channel_data_type
       for f in formats):
    img = cl.Image(ctx, cl.mem_flags.READ_WRITE, f565, shape=(2, 1))
    prg = cl.Program(ctx, """
__kernel void paint(__write_only image2d_t d) {
  write_imagef(d, (int2)(get_global_id(0), 0), (float4)(1.0f, 0.5f, 0.0f, 1.0f));
}""").build()
    prg.paint(q, (2,), None, img)
    px = np.zeros(2, dtype=np.uint16)
    cl.enqueue_copy(q, px, img, origin=(0, 0), region=(2, 1))
    if list(px) != [(31 << 11) | (32 << 5)] * 2:
        sys.exit(f"565 texels {[hex(int(v)) for v in px]}")
print(f"pyopencl images: PASS on {dev.platform.name}")
