// The host reads back an image (clEnqueueReadImage, non-blocking) on an out-of-order queue
// without waiting for the kernel that writes it: the texels read are undefined.
// queue: out-of-order
// kernel: paint
// global: 8,4   local: 4,4
// arg: image2d float 8 4 fill=zero name=img
// command: read img
// expect: data-race race=read-write memory=global scope=host-command buffer=img lines=12/?
// oclgrind: none Oclgrind runs commands one at a time and checks races only inside a launch
__kernel void paint(__write_only image2d_t img) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  write_imagef(img, p, (float4)(p.x, p.y, 0.0f, 1.0f));
}
