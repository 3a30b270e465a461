/* Programs: build failures and their log, invalid options, -D, build info queries,
 * clCompileProgram with embedded headers + clLinkProgram (also as a library), program
 * binaries round-tripped through clCreateProgramWithBinary, and kernel-creation errors. */
#include "common.h"

static int run_value(env_t *env, cl_program p, const char *name) {
  cl_int err;
  cl_kernel k = kernel(p, name);
  cl_mem m = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, sizeof(int), NULL, &err);
  CL_OK(err);
  int v = 5;
  CL_OK(clEnqueueWriteBuffer(env->q, m, CL_TRUE, 0, sizeof v, &v, 0, NULL, NULL));
  CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t g = 1;
  CL_OK(clEnqueueNDRangeKernel(env->q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
  CL_OK(clEnqueueReadBuffer(env->q, m, CL_TRUE, 0, sizeof v, &v, 0, NULL, NULL));
  CL_OK(clReleaseMemObject(m));
  CL_OK(clReleaseKernel(k));
  return v;
}

static char *build_log(cl_program p, cl_device_id dev) {
  size_t size = 0;
  CL_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &size));
  char *log = calloc(size + 1, 1);
  CL_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, size, log, NULL));
  return log;
}

int main(void) {
  env_t env = setup(0);
  cl_int err;

  /* A syntax error: CL_BUILD_PROGRAM_FAILURE, status CL_BUILD_ERROR, a log naming it. */
  const char *bad = "__kernel void broken(__global int *p) {\n  p[0] = undefined_identifier_xyz;\n}\n";
  cl_program pb = clCreateProgramWithSource(env.ctx, 1, &bad, NULL, &err);
  CL_OK(err);
  EXPECT_ERR(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(pb, 1, &env.dev, "", NULL, NULL));
  cl_build_status st = 0;
  CL_OK(clGetProgramBuildInfo(pb, env.dev, CL_PROGRAM_BUILD_STATUS, sizeof st, &st, NULL));
  CHECK(st == CL_BUILD_ERROR, "build status %d after a failed build", st);
  char *log = build_log(pb, env.dev);
  CHECK(strstr(log, "undefined_identifier_xyz") != NULL, "build log does not name the error: %s", log);
  free(log);
  EXPECT_ERR(CL_INVALID_PROGRAM_EXECUTABLE, (clCreateKernel(pb, "broken", &err), err));
  CL_OK(clReleaseProgram(pb));

  /* Unknown options: CL_INVALID_BUILD_OPTIONS. */
  const char *ok = "__kernel void value(__global int *p) { p[0] = VALUE + p[0]; }\n";
  cl_program po = clCreateProgramWithSource(env.ctx, 1, &ok, NULL, &err);
  CL_OK(err);
  EXPECT_ERR(CL_INVALID_BUILD_OPTIONS, clBuildProgram(po, 1, &env.dev, "-cl-no-such-option", NULL, NULL));
  EXPECT_ERR(CL_INVALID_PROGRAM_EXECUTABLE, (clCreateKernel(po, "value", &err), err));
  /* -D defines reach the compiler; build info reports the options. */
  const char *opts = "-D VALUE=37 -cl-mad-enable";
  CL_OK(clBuildProgram(po, 1, &env.dev, opts, NULL, NULL));
  CL_OK(clGetProgramBuildInfo(po, env.dev, CL_PROGRAM_BUILD_STATUS, sizeof st, &st, NULL));
  CHECK(st == CL_BUILD_SUCCESS, "build status %d after a good build", st);
  char got_opts[128] = "";
  CL_OK(clGetProgramBuildInfo(po, env.dev, CL_PROGRAM_BUILD_OPTIONS, sizeof got_opts, got_opts, NULL));
  CHECK(strcmp(got_opts, opts) == 0, "CL_PROGRAM_BUILD_OPTIONS '%s'", got_opts);
  cl_program_binary_type bt = 0;
  CL_OK(clGetProgramBuildInfo(po, env.dev, CL_PROGRAM_BINARY_TYPE, sizeof bt, &bt, NULL));
  CHECK(bt == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "binary type %#x after build", bt);
  CHECK(run_value(&env, po, "value") == 42, "-D VALUE=37 result");
  EXPECT_ERR(CL_INVALID_KERNEL_NAME, (clCreateKernel(po, "no_such_kernel", &err), err));

  /* Binaries: fetch, recreate, build, run. */
  size_t bin_size = 0;
  CL_OK(clGetProgramInfo(po, CL_PROGRAM_BINARY_SIZES, sizeof bin_size, &bin_size, NULL));
  CHECK(bin_size > 0, "binary size 0");
  unsigned char *bin = malloc(bin_size ? bin_size : 1);
  unsigned char *bins[1] = {bin};
  CL_OK(clGetProgramInfo(po, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL));
  cl_int bin_status = -1;
  const unsigned char *cbins[1] = {bin};
  cl_program pbin = clCreateProgramWithBinary(env.ctx, 1, &env.dev, &bin_size, cbins, &bin_status, &err);
  CL_OK(err);
  CHECK(bin_status == CL_SUCCESS, "binary status %d", bin_status);
  CL_OK(clBuildProgram(pbin, 1, &env.dev, "", NULL, NULL));
  CHECK(run_value(&env, pbin, "value") == 42, "program from binary result");
  CL_OK(clReleaseProgram(pbin));
  free(bin);
  unsigned char junk[64];
  memset(junk, 0x5A, sizeof junk);
  const unsigned char *jb[1] = {junk};
  size_t jsize = sizeof junk;
  cl_program pj = clCreateProgramWithBinary(env.ctx, 1, &env.dev, &jsize, jb, &bin_status, &err);
  CHECK(err == CL_INVALID_BINARY || (err == CL_SUCCESS && clBuildProgram(pj, 1, &env.dev, "", NULL, NULL) != CL_SUCCESS),
        "a junk binary was accepted (%d)", err);
  if (err == CL_SUCCESS) CL_OK(clReleaseProgram(pj));
  CL_OK(clReleaseProgram(po));

  /* Separate compilation with an embedded header, then linking. */
  const char *hdr_src = "#define TWICE(x) (2 * (x))\nint helper(int x);\n";
  const char *main_src = "#include \"inc/helper.h\"\n"
                         "__kernel void linked(__global int *p) { p[0] = TWICE(helper(p[0])); }\n";
  const char *lib_src = "#include \"inc/helper.h\"\nint helper(int x) { return x + 1; }\n";
  cl_program hdr = clCreateProgramWithSource(env.ctx, 1, &hdr_src, NULL, &err);
  CL_OK(err);
  cl_program pm = clCreateProgramWithSource(env.ctx, 1, &main_src, NULL, &err);
  CL_OK(err);
  cl_program pl = clCreateProgramWithSource(env.ctx, 1, &lib_src, NULL, &err);
  CL_OK(err);
  const char *hnames[1] = {"inc/helper.h"};
  EXPECT_ERR(CL_COMPILE_PROGRAM_FAILURE, clCompileProgram(pm, 1, &env.dev, "", 0, NULL, NULL, NULL, NULL));
  EXPECT_ERR(CL_INVALID_COMPILER_OPTIONS, clCompileProgram(pm, 1, &env.dev, "-bogus-option", 1, &hdr, hnames, NULL, NULL));
  CL_OK(clCompileProgram(pm, 1, &env.dev, "", 1, &hdr, hnames, NULL, NULL));
  CL_OK(clCompileProgram(pl, 1, &env.dev, "", 1, &hdr, hnames, NULL, NULL));
  CL_OK(clGetProgramBuildInfo(pm, env.dev, CL_PROGRAM_BINARY_TYPE, sizeof bt, &bt, NULL));
  CHECK(bt == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, "binary type %#x after compile", bt);
  cl_program lib = clLinkProgram(env.ctx, 1, &env.dev, "-create-library", 1, &pl, NULL, NULL, &err);
  CL_OK(err);
  CL_OK(clGetProgramBuildInfo(lib, env.dev, CL_PROGRAM_BINARY_TYPE, sizeof bt, &bt, NULL));
  CHECK(bt == CL_PROGRAM_BINARY_TYPE_LIBRARY, "binary type %#x after -create-library", bt);
  cl_program inputs[2] = {pm, lib};
  cl_program exe = clLinkProgram(env.ctx, 1, &env.dev, "", 2, inputs, NULL, NULL, &err);
  CL_OK(err);
  CL_OK(clGetProgramBuildInfo(exe, env.dev, CL_PROGRAM_BINARY_TYPE, sizeof bt, &bt, NULL));
  CHECK(bt == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "binary type %#x after link", bt);
  CHECK(run_value(&env, exe, "linked") == 12, "linked program result");
  cl_program exe2 = clLinkProgram(env.ctx, 1, &env.dev, "-no-such-link-option", 2, inputs, NULL, NULL, &err);
  CHECK(err == CL_INVALID_LINKER_OPTIONS, "bad link option -> %d (%s)", err, cl_err_name(err));
  if (exe2) clReleaseProgram(exe2);
  /* Linking the main object alone leaves helper undefined. */
  cl_program exe3 = clLinkProgram(env.ctx, 1, &env.dev, "", 1, &pm, NULL, NULL, &err);
  CHECK(err == CL_LINK_PROGRAM_FAILURE || (err == CL_SUCCESS && exe3 != NULL),
        "link with an undefined function -> %d (%s)", err, cl_err_name(err));
  if (exe3) clReleaseProgram(exe3);

  cl_program all[] = {hdr, pm, pl, lib, exe};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) CL_OK(clReleaseProgram(all[i]));
  teardown(&env);
  return finish("programs");
}
