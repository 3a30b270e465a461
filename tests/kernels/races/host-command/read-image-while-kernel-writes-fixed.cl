// Twin of read-image-while-kernel-writes.cl: the read waits for the kernel's event.
// queue: out-of-order
// kernel: paint
// global: 8,4   local: 4,4
// arg: image2d float 8 4 fill=zero name=img
// command: read img
// after: 0
// expect: none
__kernel void paint(__write_only image2d_t img) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  write_imagef(img, p, (float4)(p.x, p.y, 0.0f, 1.0f));
}
