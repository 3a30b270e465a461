// clEnqueueCopyBuffer refreshes the kernel's input from a staging buffer, unordered with
// the launch that reads it (out-of-order queue, no event): a write-read race on `in`. The
// copy's read of the staging buffer races with nothing (the kernel does not touch it).
// queue: out-of-order
// launch: scale
// global: 16   local: 16
// arg: buffer float 16 fill=iota name=in
// arg: buffer float 16 fill=zero name=out
// arg: buffer float 16 fill=ones name=staging
// command: copy staging in
// expect: data-race race=read-write memory=global scope=host-command buffer=in lines=14/?
// oclgrind: none Oclgrind runs commands one at a time and checks races only inside a launch
__kernel void scale(__global const float *in, __global float *out, __global const float *staging) {
  out[get_global_id(0)] = in[get_global_id(0)] * 2.0f;
}
