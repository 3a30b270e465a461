/* A tree reduction in local memory that forgets the barrier inside its loop: work-item l reads
 * s[l + k] which work-item l + k may still be writing. On a GPU this usually "works" — until it
 * does not. ShadowCL reports the read-write race on `scratch` with both source lines. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *SRC =
    "__kernel void reduce(__global const int *in, __global int *out, __local int *scratch) {\n"
    "  size_t l = get_local_id(0);\n"
    "  scratch[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t k = get_local_size(0) / 2; k > 0; k /= 2) {\n"
    "    if (l < k)\n"
    "      scratch[l] += scratch[l + k];\n"
    "    /* missing: barrier(CLK_LOCAL_MEM_FENCE); */\n"
    "  }\n"
    "  if (l == 0)\n"
    "    out[get_group_id(0)] = scratch[0];\n"
    "}\n";

#define N 1024
#define WG 64

static void die(const char *what, cl_int err) {
  fprintf(stderr, "racy_reduction: %s failed (%d)\n", what, err);
  exit(1);
}

int main(void) {
  cl_platform_id plat;
  cl_device_id dev;
  cl_int err;
  if ((err = clGetPlatformIDs(1, &plat, NULL)) != CL_SUCCESS) die("clGetPlatformIDs", err);
  if ((err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL)) != CL_SUCCESS)
    die("clGetDeviceIDs", err);
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  if (err) die("clCreateContext", err);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
  if (err) die("clCreateCommandQueue", err);
  cl_program p = clCreateProgramWithSource(ctx, 1, &SRC, NULL, &err);
  if (err) die("clCreateProgramWithSource", err);
  if ((err = clBuildProgram(p, 1, &dev, "", NULL, NULL)) != CL_SUCCESS) {
    char log[16384] = "";
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "%s\n", log);
    die("clBuildProgram", err);
  }
  cl_kernel k = clCreateKernel(p, "reduce", &err);
  if (err) die("clCreateKernel", err);
  int in[N], out[N / WG];
  long expect = 0;
  for (int i = 0; i < N; i++) expect += (in[i] = i % 10);
  cl_mem bin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
  if (err) die("clCreateBuffer(in)", err);
  cl_mem bout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
  if (err) die("clCreateBuffer(out)", err);
  clSetKernelArg(k, 0, sizeof bin, &bin);
  clSetKernelArg(k, 1, sizeof bout, &bout);
  clSetKernelArg(k, 2, WG * sizeof(int), NULL);
  size_t g = N, l = WG;
  if ((err = clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL)) != CL_SUCCESS)
    die("clEnqueueNDRangeKernel", err);
  if ((err = clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL)) != CL_SUCCESS)
    die("clEnqueueReadBuffer", err);
  long sum = 0;
  for (int i = 0; i < N / WG; i++) sum += out[i];
  printf("racy_reduction: sum = %ld (expected %ld)\n", sum, expect);
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
  clReleaseKernel(k);
  clReleaseProgram(p);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return 0;
}
