/* A compute queue and a transfer queue, as applications overlap copies with kernels. The
 * transfer queue writes a block of the kernel's input (clEnqueueWriteBufferRect) with no event
 * between it and the kernel that reads that input: a race between a host command and a kernel.
 * It then reads a block of the output (clEnqueueReadBufferRect) after waiting for the kernel's
 * event: ordered, no race; the host checks those values. Prints "transfer_queue: PASS". */
#include "common.h"

static const char *SRC =
    "__kernel void twice(__global const int *in, __global int *out) {\n"
    "  out[get_global_id(0)] = 2 * in[get_global_id(0)];\n"
    "}\n";

#define W 16 /* ints per row */
#define H 16 /* rows */

int main(void) {
  env_t env = setup(0);
  cl_int err;
  cl_command_queue transfer = clCreateCommandQueue(env.ctx, env.dev, 0, &err);
  CL_OK(err);
  cl_program p = build(&env, SRC, "");
  cl_kernel k = clCreateKernel(p, "twice", &err);
  CL_OK(err);
  int init[W * H];
  for (int i = 0; i < W * H; i++) init[i] = i;
  cl_mem in = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof init,
                             init, &err);
  CL_OK(err);
  cl_mem out = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, sizeof init, NULL, &err);
  CL_OK(err);
  CL_OK(clSetKernelArg(k, 0, sizeof in, &in));
  CL_OK(clSetKernelArg(k, 1, sizeof out, &out));

  size_t g = W * H, l = 64;
  cl_event done;
  CL_OK(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &g, &l, 0, NULL, &done));

  /* Racy: an 8x4 block of `in` (rows 2..5, ints 4..11), nothing ordering it with `twice`. */
  int block[8 * 4];
  for (int i = 0; i < 8 * 4; i++) block[i] = -1;
  size_t buf_origin[3] = {4 * sizeof(int), 2, 0}, host_origin[3] = {0, 0, 0};
  size_t region[3] = {8 * sizeof(int), 4, 1};
  CL_OK(clEnqueueWriteBufferRect(transfer, in, CL_FALSE, buf_origin, host_origin, region,
                                 W * sizeof(int), 0, 8 * sizeof(int), 0, block, 0, NULL, NULL));

  /* Ordered: the same block of `out`, after the kernel's event. Rows 10..13 of `in` were not
   * written by the racy block, so their doubled values are certain. */
  int result[8 * 4];
  size_t out_origin[3] = {4 * sizeof(int), 10, 0};
  CL_OK(clEnqueueReadBufferRect(transfer, out, CL_FALSE, out_origin, host_origin, region,
                                W * sizeof(int), 0, 8 * sizeof(int), 0, result, 1, &done,
                                NULL));
  CL_OK(clFinish(env.q));
  CL_OK(clFinish(transfer));
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 8; x++) {
      int want = 2 * ((10 + y) * W + 4 + x);
      CHECK(result[y * 8 + x] == want, "out[%d][%d] = %d, expected %d", 10 + y, 4 + x,
            result[y * 8 + x], want);
    }
  CL_OK(clReleaseEvent(done));
  CL_OK(clReleaseMemObject(in));
  CL_OK(clReleaseMemObject(out));
  CL_OK(clReleaseKernel(k));
  CL_OK(clReleaseProgram(p));
  CL_OK(clReleaseCommandQueue(transfer));
  teardown(&env);
  if (failures) return 1;
  printf("transfer_queue: PASS\n");
  return 0;
}
