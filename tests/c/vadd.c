/* Vector add, from OpenCL C source (two source strings, exercising concatenation) or from a
 * SPIR-V module via clCreateProgramWithIL.
 *   vadd source
 *   vadd spirv FILE.spv      (exit 77 when the device takes no SPIR-V) */
#include "common.h"

static const char *SRC[2] = {
    "__kernel void vadd(__global const float *a, __global const float *b,\n",
    "                   __global float *c, const float scale) {\n"
    "  size_t i = get_global_id(0);\n"
    "  c[i] = a[i] + scale * b[i];\n"
    "}\n"};

#define N 1000

static int run(env_t *env, cl_program p) {
  cl_int err;
  cl_kernel k = kernel(p, "vadd");
  float a[N], b[N], c[N];
  for (int i = 0; i < N; i++) {
    a[i] = (float)i;
    b[i] = (float)(2 * i + 1);
    c[i] = -1.0f;
  }
  cl_mem ba = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
  CL_OK(err);
  cl_mem bb = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY, sizeof b, NULL, &err);
  CL_OK(err);
  cl_mem bc = clCreateBuffer(env->ctx, CL_MEM_WRITE_ONLY, sizeof c, NULL, &err);
  CL_OK(err);
  CL_OK(clEnqueueWriteBuffer(env->q, bb, CL_TRUE, 0, sizeof b, b, 0, NULL, NULL));
  float scale = 3.0f;
  CL_OK(clSetKernelArg(k, 0, sizeof ba, &ba));
  CL_OK(clSetKernelArg(k, 1, sizeof bb, &bb));
  CL_OK(clSetKernelArg(k, 2, sizeof bc, &bc));
  CL_OK(clSetKernelArg(k, 3, sizeof scale, &scale));
  /* Whole range, implementation-chosen work-group size. */
  size_t g = N;
  CL_OK(clEnqueueNDRangeKernel(env->q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
  CL_OK(clEnqueueReadBuffer(env->q, bc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL));
  int bad = 0;
  for (int i = 0; i < N; i++)
    if (c[i] != a[i] + 3.0f * b[i] && bad++ < 5) CHECK(0, "c[%d] = %g, expected %g", i, c[i], a[i] + 3.0f * b[i]);
  /* Second half only, through a global offset and explicit work-groups of 20, scale 1. */
  scale = 1.0f;
  CL_OK(clSetKernelArg(k, 3, sizeof scale, &scale));
  size_t off = N / 2, g2 = N / 2, l = 20;
  CL_OK(clEnqueueNDRangeKernel(env->q, k, 1, &off, &g2, &l, 0, NULL, NULL));
  CL_OK(clEnqueueReadBuffer(env->q, bc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL));
  bad = 0;
  for (int i = 0; i < N; i++) {
    float want = i < N / 2 ? a[i] + 3.0f * b[i] : a[i] + b[i];
    if (c[i] != want && bad++ < 5) CHECK(0, "after offset launch c[%d] = %g, expected %g", i, c[i], want);
  }
  CL_OK(clReleaseMemObject(ba));
  CL_OK(clReleaseMemObject(bb));
  CL_OK(clReleaseMemObject(bc));
  CL_OK(clReleaseKernel(k));
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: vadd source | vadd spirv FILE.spv\n");
    return 2;
  }
  env_t env = setup(0);
  cl_int err;
  cl_program p;
  if (strcmp(argv[1], "source") == 0) {
    p = clCreateProgramWithSource(env.ctx, 2, SRC, NULL, &err);
    CL_OK(err);
    err = clBuildProgram(p, 1, &env.dev, "-cl-std=CL1.2", NULL, NULL);
    if (err) print_build_log(p, env.dev);
    CL_OK(err);
    size_t len = 0;
    CL_OK(clGetProgramInfo(p, CL_PROGRAM_SOURCE, 0, NULL, &len));
    char *text = calloc(len + 1, 1);
    CL_OK(clGetProgramInfo(p, CL_PROGRAM_SOURCE, len, text, NULL));
    CHECK(strlen(text) == strlen(SRC[0]) + strlen(SRC[1]) && strncmp(text, SRC[0], strlen(SRC[0])) == 0,
          "CL_PROGRAM_SOURCE is not the concatenated source: %s", text);
    free(text);
  } else if (strcmp(argv[1], "spirv") == 0 && argc == 3) {
    char il[256] = "";
    clGetDeviceInfo(env.dev, CL_DEVICE_IL_VERSION, sizeof il, il, NULL);
    if (!strstr(il, "SPIR-V")) {
      printf("SKIP: device reports no SPIR-V support (CL_DEVICE_IL_VERSION '%s')\n", il);
      return 77;
    }
    FILE *f = fopen(argv[2], "rb");
    if (!f) {
      perror(argv[2]);
      return 2;
    }
    static unsigned char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    p = clCreateProgramWithIL(env.ctx, buf, n, &err);
    CL_OK(err);
    err = clBuildProgram(p, 1, &env.dev, "", NULL, NULL);
    if (err) print_build_log(p, env.dev);
    CL_OK(err);
    size_t il_size = 0;
    CL_OK(clGetProgramInfo(p, CL_PROGRAM_IL, 0, NULL, &il_size));
    CHECK(il_size == n, "CL_PROGRAM_IL size %zu, expected %zu", il_size, n);
  } else {
    fprintf(stderr, "usage: vadd source | vadd spirv FILE.spv\n");
    return 2;
  }
  run(&env, p);
  CL_OK(clReleaseProgram(p));
  teardown(&env);
  return finish(argv[1][0] == 's' && argv[1][1] == 'o' ? "vadd-source" : "vadd-spirv");
}
