/* Kernel queries: clGetKernelArgInfo (names, type names, address/access/type qualifiers),
 * clGetKernelInfo, clGetKernelWorkGroupInfo, clCreateKernelsInProgram, argument errors,
 * a launch honouring reqd_work_group_size, and a task. */
#include "common.h"

static const char *SRC =
    "__kernel __attribute__((reqd_work_group_size(4, 1, 1)))\n"
    "void info(__global const float *restrict in, __global volatile int *out,\n"
    "          __local float4 *tmp, __constant uint *table, const int n, float2 scale) {\n"
    "  size_t i = get_global_id(0), l = get_local_id(0);\n"
    "  tmp[l] = (float4)(in[i] * scale.x + scale.y);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[i] = (int)tmp[(l + 1) % 4].x + (int)table[i % 2] + n;\n"
    "}\n"
    "__kernel void other(__global int *p) { p[get_global_id(0)] = 1; }\n";

static void arg_str(cl_kernel k, cl_uint i, cl_kernel_arg_info what, char *buf, size_t n) {
  buf[0] = 0;
  CL_OK(clGetKernelArgInfo(k, i, what, n, buf, NULL));
}

int main(void) {
  env_t env = setup(0);
  cl_int err;
  cl_program p = build(&env, SRC, "-cl-kernel-arg-info");
  cl_kernel k = kernel(p, "info");

  static const char *names[6] = {"in", "out", "tmp", "table", "n", "scale"};
  static const char *types[6] = {"float*", "int*", "float4*", "uint*", "int", "float2"};
  static const cl_kernel_arg_address_qualifier aq[6] = {
      CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ADDRESS_GLOBAL,  CL_KERNEL_ARG_ADDRESS_LOCAL,
      CL_KERNEL_ARG_ADDRESS_CONSTANT, CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ADDRESS_PRIVATE};
  static const cl_kernel_arg_type_qualifier tq[6] = {
      CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT, CL_KERNEL_ARG_TYPE_VOLATILE,
      CL_KERNEL_ARG_TYPE_NONE, CL_KERNEL_ARG_TYPE_CONST, CL_KERNEL_ARG_TYPE_NONE, CL_KERNEL_ARG_TYPE_NONE};
  for (cl_uint i = 0; i < 6; i++) {
    char buf[128];
    arg_str(k, i, CL_KERNEL_ARG_NAME, buf, sizeof buf);
    CHECK(strcmp(buf, names[i]) == 0, "arg %u name '%s', expected '%s'", i, buf, names[i]);
    arg_str(k, i, CL_KERNEL_ARG_TYPE_NAME, buf, sizeof buf);
    CHECK(strcmp(buf, types[i]) == 0, "arg %u type name '%s', expected '%s'", i, buf, types[i]);
    cl_kernel_arg_address_qualifier a = 0;
    CL_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof a, &a, NULL));
    CHECK(a == aq[i], "arg %u address qualifier %#x, expected %#x", i, a, aq[i]);
    cl_kernel_arg_access_qualifier acc = 0;
    CL_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof acc, &acc, NULL));
    CHECK(acc == CL_KERNEL_ARG_ACCESS_NONE, "arg %u access qualifier %#x", i, acc);
    cl_kernel_arg_type_qualifier t = 0;
    CL_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof t, &t, NULL));
    CHECK(t == tq[i], "arg %u type qualifier %#llx, expected %#llx", i, (unsigned long long)t,
          (unsigned long long)tq[i]);
  }
  char small[2];
  EXPECT_ERR(CL_INVALID_ARG_INDEX, clGetKernelArgInfo(k, 6, CL_KERNEL_ARG_NAME, 0, NULL, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof small, small, NULL));

  /* clGetKernelInfo */
  char fname[64] = "", attrs[256] = "";
  cl_uint nargs = 0;
  cl_context kc = NULL;
  cl_program kp = NULL;
  CL_OK(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof fname, fname, NULL));
  CL_OK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL));
  CL_OK(clGetKernelInfo(k, CL_KERNEL_CONTEXT, sizeof kc, &kc, NULL));
  CL_OK(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof kp, &kp, NULL));
  CL_OK(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, sizeof attrs, attrs, NULL));
  CHECK(strcmp(fname, "info") == 0, "function name '%s'", fname);
  CHECK(nargs == 6, "num args %u", nargs);
  CHECK(kc == env.ctx && kp == p, "kernel context/program");
  CHECK(strstr(attrs, "reqd_work_group_size") != NULL, "attributes '%s'", attrs);

  /* clGetKernelWorkGroupInfo */
  size_t cwgs[3] = {0}, wgs = 0, mult = 0, dev_max = 0;
  cl_ulong lmem = 0, pmem = 0;
  CL_OK(clGetKernelWorkGroupInfo(k, env.dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof cwgs, cwgs, NULL));
  CL_OK(clGetKernelWorkGroupInfo(k, env.dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wgs, &wgs, NULL));
  CL_OK(clGetKernelWorkGroupInfo(k, env.dev, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof mult, &mult, NULL));
  CL_OK(clGetKernelWorkGroupInfo(k, env.dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL));
  CL_OK(clGetKernelWorkGroupInfo(k, env.dev, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof pmem, &pmem, NULL));
  CL_OK(clGetDeviceInfo(env.dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof dev_max, &dev_max, NULL));
  CHECK(cwgs[0] == 4 && cwgs[1] == 1 && cwgs[2] == 1, "compile work-group size %zu %zu %zu", cwgs[0], cwgs[1], cwgs[2]);
  CHECK(wgs >= 4 && wgs <= dev_max, "kernel work-group size %zu (device max %zu)", wgs, dev_max);
  CHECK(mult >= 1, "preferred multiple %zu", mult);

  /* clCreateKernelsInProgram and program kernel queries. */
  cl_uint nk = 0;
  CL_OK(clCreateKernelsInProgram(p, 0, NULL, &nk));
  CHECK(nk == 2, "clCreateKernelsInProgram count %u", nk);
  cl_kernel ks[2] = {NULL, NULL};
  CL_OK(clCreateKernelsInProgram(p, 2, ks, NULL));
  char n0[32] = "", n1[32] = "";
  CL_OK(clGetKernelInfo(ks[0], CL_KERNEL_FUNCTION_NAME, sizeof n0, n0, NULL));
  CL_OK(clGetKernelInfo(ks[1], CL_KERNEL_FUNCTION_NAME, sizeof n1, n1, NULL));
  CHECK((strcmp(n0, "info") == 0 && strcmp(n1, "other") == 0) || (strcmp(n0, "other") == 0 && strcmp(n1, "info") == 0),
        "kernels in program: '%s' '%s'", n0, n1);
  CL_OK(clReleaseKernel(ks[0]));
  CL_OK(clReleaseKernel(ks[1]));
  size_t pnk = 0;
  char knames[64] = "";
  CL_OK(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof pnk, &pnk, NULL));
  CL_OK(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof knames, knames, NULL));
  CHECK(pnk == 2, "CL_PROGRAM_NUM_KERNELS %zu", pnk);
  CHECK(strstr(knames, "info") && strstr(knames, "other") && strchr(knames, ';'), "CL_PROGRAM_KERNEL_NAMES '%s'", knames);

  /* Argument errors, then a launch. */
  float in[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  cl_uint table[2] = {100, 200};
  cl_mem bin = clCreateBuffer(env.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
  CL_OK(err);
  cl_mem bout = clCreateBuffer(env.ctx, CL_MEM_WRITE_ONLY, 8 * sizeof(int), NULL, &err);
  CL_OK(err);
  cl_mem btab = clCreateBuffer(env.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof table, table, &err);
  CL_OK(err);
  EXPECT_ERR(CL_INVALID_ARG_INDEX, clSetKernelArg(k, 6, sizeof bin, &bin));
  EXPECT_ERR(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 0, 3, &bin));
  EXPECT_ERR(CL_INVALID_ARG_VALUE, clSetKernelArg(k, 2, 4 * sizeof(cl_float4), in));
  EXPECT_ERR(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 2, 0, NULL));
  EXPECT_ERR(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 4, sizeof(cl_long), &table));
  CL_OK(clSetKernelArg(k, 0, sizeof bin, &bin));
  size_t g = 8, l = 4, l8 = 8;
  EXPECT_ERR(CL_INVALID_KERNEL_ARGS, clEnqueueNDRangeKernel(env.q, k, 1, NULL, &g, &l, 0, NULL, NULL));
  CL_OK(clSetKernelArg(k, 1, sizeof bout, &bout));
  CL_OK(clSetKernelArg(k, 2, 4 * sizeof(cl_float4), NULL));
  CL_OK(clSetKernelArg(k, 3, sizeof btab, &btab));
  cl_int n = 5;
  CL_OK(clSetKernelArg(k, 4, sizeof n, &n));
  cl_float2 scale = {{2.0f, 1.0f}};
  CL_OK(clSetKernelArg(k, 5, sizeof scale, &scale));
  EXPECT_ERR(CL_INVALID_WORK_GROUP_SIZE, clEnqueueNDRangeKernel(env.q, k, 1, NULL, &g, &l8, 0, NULL, NULL));
  CL_OK(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &g, &l, 0, NULL, NULL));
  int out[8];
  CL_OK(clEnqueueReadBuffer(env.q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (int i = 0; i < 8; i++) {
    int grp = i / 4, lid = i % 4;
    int src = grp * 4 + (lid + 1) % 4;
    int want = (int)(in[src] * 2.0f + 1.0f) + (int)table[i % 2] + 5;
    CHECK(out[i] == want, "out[%d] = %d, expected %d", i, out[i], want);
  }

  /* A task is a launch of one work-item: `other` writes element 0 only. */
  cl_kernel ko = kernel(p, "other");
  CL_OK(clSetKernelArg(ko, 0, sizeof bout, &bout));
  CL_OK(clEnqueueTask(env.q, ko, 0, NULL, NULL));
  CL_OK(clEnqueueReadBuffer(env.q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  CHECK(out[0] == 1 && out[1] == (int)(in[2] * 2.0f + 1.0f) + (int)table[1] + 5,
        "after the task: out[0] = %d, out[1] = %d", out[0], out[1]);
  CL_OK(clReleaseKernel(ko));

  CL_OK(clReleaseMemObject(bin));
  CL_OK(clReleaseMemObject(bout));
  CL_OK(clReleaseMemObject(btab));
  CL_OK(clReleaseKernel(k));
  CL_OK(clReleaseProgram(p));
  teardown(&env);
  return finish("kernel_info");
}
