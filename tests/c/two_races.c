/* Two kernels, each with one write-write race on its own buffer (every work-item of the one
 * work-group stores its id to element 0), for the suppression and kernel-selection tests.
 * Each kernel also writes a race-free per-item result that the host checks, so a launch
 * that runs unchecked is still seen to have run. Prints "two_races: PASS". */
#include "common.h"

static const char *SRC =
    "__kernel void first_race(__global int *first_slot, __global int *first_done) {\n"
    "  first_slot[0] = (int)get_global_id(0);\n"
    "  first_done[get_global_id(0)] = 1;\n"
    "}\n"
    "__kernel void second_race(__global int *second_slot, __global int *second_done) {\n"
    "  second_slot[0] = (int)get_global_id(0);\n"
    "  second_done[get_global_id(0)] = 2;\n"
    "}\n";

#define N 16

static void launch(env_t *env, cl_program p, const char *name, int expect) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  CL_OK(err);
  int zero[N] = {0};
  cl_mem slot = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(int),
                               zero, &err);
  CL_OK(err);
  cl_mem done = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero,
                               zero, &err);
  CL_OK(err);
  CL_OK(clSetKernelArg(k, 0, sizeof slot, &slot));
  CL_OK(clSetKernelArg(k, 1, sizeof done, &done));
  size_t g = N, l = N;
  CL_OK(clEnqueueNDRangeKernel(env->q, k, 1, NULL, &g, &l, 0, NULL, NULL));
  int out[N];
  CL_OK(clEnqueueReadBuffer(env->q, done, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (int i = 0; i < N; i++)
    CHECK(out[i] == expect, "%s: done[%d] = %d, expected %d", name, i, out[i], expect);
  CL_OK(clReleaseMemObject(slot));
  CL_OK(clReleaseMemObject(done));
  CL_OK(clReleaseKernel(k));
}

int main(void) {
  env_t env = setup(0);
  cl_int err;
  cl_program p = clCreateProgramWithSource(env.ctx, 1, &SRC, NULL, &err);
  CL_OK(err);
  err = clBuildProgram(p, 1, &env.dev, "", NULL, NULL);
  if (err != CL_SUCCESS) print_build_log(p, env.dev);
  CL_OK(err);
  launch(&env, p, "first_race", 1);
  launch(&env, p, "second_race", 2);
  CL_OK(clReleaseProgram(p));
  teardown(&env);
  if (failures) return 1;
  printf("two_races: PASS\n");
  return 0;
}
