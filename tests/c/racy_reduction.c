/* A local-memory tree reduction that forgets the barrier inside its loop: work-item l reads
 * scratch[l + k] while work-item l + k may still be writing it. On most devices the sum
 * still comes out right most of the time; under ShadowCL the read-write race on `scratch`
 * is reported with both source lines. Self-contained (no common.h), for ci/demo:
 *   cc -O1 -o racy_reduction tests/c/racy_reduction.c -lOpenCL
 * Exit status: 0 when the program ran (whatever the sum), 1 when an OpenCL call failed. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static const char *SRC =
    "__kernel void reduce(__global const int *in, __global int *out,\n"
    "                     __local int *scratch) {\n"
    "  size_t l = get_local_id(0);\n"
    "  scratch[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t k = get_local_size(0) / 2; k > 0; k /= 2) {\n"
    "    if (l < k)\n"
    "      scratch[l] += scratch[l + k];\n"
    "    /* BUG: missing barrier(CLK_LOCAL_MEM_FENCE); */\n"
    "  }\n"
    "  if (l == 0)\n"
    "    out[get_group_id(0)] = scratch[0];\n"
    "}\n";

#define N 1024
#define WG 64

static void check(cl_int err, const char *what) {
  if (err != CL_SUCCESS) {
    fprintf(stderr, "racy_reduction: %s failed (%d)\n", what, err);
    exit(1);
  }
}

int main(void) {
  cl_platform_id plat;
  cl_device_id dev;
  cl_int err;
  check(clGetPlatformIDs(1, &plat, NULL), "clGetPlatformIDs");
  check(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), "clGetDeviceIDs");
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  check(err, "clCreateContext");
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
  check(err, "clCreateCommandQueue");
  cl_program p = clCreateProgramWithSource(ctx, 1, &SRC, NULL, &err);
  check(err, "clCreateProgramWithSource");
  err = clBuildProgram(p, 1, &dev, "", NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[16384] = "";
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "%s\n", log);
    check(err, "clBuildProgram");
  }
  cl_kernel k = clCreateKernel(p, "reduce", &err);
  check(err, "clCreateKernel");
  static int in[N], out[N / WG];
  long expect = 0;
  for (int i = 0; i < N; i++) expect += (in[i] = i % 10);
  cl_mem bin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
  check(err, "clCreateBuffer(in)");
  cl_mem bout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
  check(err, "clCreateBuffer(out)");
  check(clSetKernelArg(k, 0, sizeof bin, &bin), "clSetKernelArg(0)");
  check(clSetKernelArg(k, 1, sizeof bout, &bout), "clSetKernelArg(1)");
  check(clSetKernelArg(k, 2, WG * sizeof(int), NULL), "clSetKernelArg(2)");
  size_t g = N, l = WG;
  check(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL), "clEnqueueNDRangeKernel");
  check(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL), "clEnqueueReadBuffer");
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
