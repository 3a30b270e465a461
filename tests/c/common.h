/* Shared helpers for the C host programs of the integration tests. Each host prints
 * "<name>: PASS" and exits 0, or prints "FAIL file:line: ..." lines and exits 1.
 * Exit code 77 means "not supported by this platform" (the test decides what that means). */
#ifndef SHADOWCL_TEST_COMMON_H
#define SHADOWCL_TEST_COMMON_H
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static inline const char *cl_err_name(cl_int e) {
  switch (e) {
#define E(x) case x: return #x;
    E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
    E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_MEM_COPY_OVERLAP) E(CL_BUILD_PROGRAM_FAILURE)
    E(CL_MAP_FAILURE) E(CL_MISALIGNED_SUB_BUFFER_OFFSET) E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    E(CL_COMPILE_PROGRAM_FAILURE) E(CL_LINKER_NOT_AVAILABLE) E(CL_LINK_PROGRAM_FAILURE)
    E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) E(CL_INVALID_VALUE) E(CL_INVALID_DEVICE_TYPE)
    E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT) E(CL_INVALID_QUEUE_PROPERTIES)
    E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_HOST_PTR) E(CL_INVALID_MEM_OBJECT)
    E(CL_INVALID_BINARY) E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM)
    E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL_DEFINITION)
    E(CL_INVALID_KERNEL) E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
    E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
    E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST)
    E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION) E(CL_INVALID_BUFFER_SIZE)
    E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_PROPERTY) E(CL_INVALID_COMPILER_OPTIONS)
    E(CL_INVALID_LINKER_OPTIONS)
#undef E
  default: return "?";
  }
}

#define CHECK(cond, ...)                                                   \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "FAIL %s:%d: (%s) ", __FILE__, __LINE__, #cond);     \
      fprintf(stderr, __VA_ARGS__);                                        \
      fputc('\n', stderr);                                                 \
      failures++;                                                          \
    }                                                                      \
  } while (0)

/* A call that must succeed; the program cannot go on otherwise. */
#define CL_OK(call)                                                        \
  do {                                                                     \
    cl_int e_ = (call);                                                    \
    if (e_ != CL_SUCCESS) {                                                \
      fprintf(stderr, "FAIL %s:%d: %s -> %d (%s)\n", __FILE__, __LINE__,   \
              #call, e_, cl_err_name(e_));                                 \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

/* A call that must return exactly `code`. */
#define EXPECT_ERR(code, call)                                             \
  do {                                                                     \
    cl_int e_ = (call);                                                    \
    if (e_ != (code)) {                                                    \
      fprintf(stderr, "FAIL %s:%d: %s -> %d (%s), expected %s\n", __FILE__, \
              __LINE__, #call, e_, cl_err_name(e_), #code);                \
      failures++;                                                          \
    }                                                                      \
  } while (0)

/* A call that must fail (any error code). */
#define EXPECT_FAIL(call)                                                  \
  do {                                                                     \
    cl_int e_ = (call);                                                    \
    if (e_ == CL_SUCCESS) {                                                \
      fprintf(stderr, "FAIL %s:%d: %s succeeded, expected an error\n",     \
              __FILE__, __LINE__, #call);                                  \
      failures++;                                                          \
    }                                                                      \
  } while (0)

typedef struct {
  cl_platform_id plat;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
} env_t;

/* The platform named by $HOST_PLATFORM (substring), else the first one. */
static inline env_t setup(cl_command_queue_properties props) {
  env_t env;
  cl_platform_id plats[16];
  cl_uint n = 0;
  cl_int err;
  CL_OK(clGetPlatformIDs(16, plats, &n));
  if (n == 0) {
    fprintf(stderr, "FAIL: no platform\n");
    exit(1);
  }
  env.plat = plats[0];
  const char *want = getenv("HOST_PLATFORM");
  if (want && *want) {
    int found = 0;
    for (cl_uint i = 0; i < n && i < 16; i++) {
      char name[256] = "";
      CL_OK(clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof name, name, NULL));
      if (strstr(name, want)) {
        env.plat = plats[i];
        found = 1;
        break;
      }
    }
    if (!found) {
      fprintf(stderr, "FAIL: no platform named %s\n", want);
      exit(1);
    }
  }
  CL_OK(clGetDeviceIDs(env.plat, CL_DEVICE_TYPE_ALL, 1, &env.dev, NULL));
  env.ctx = clCreateContext(NULL, 1, &env.dev, NULL, NULL, &err);
  CL_OK(err);
  env.q = clCreateCommandQueue(env.ctx, env.dev, props, &err);
  CL_OK(err);
  return env;
}

static inline void teardown(env_t *env) {
  CL_OK(clFinish(env->q));
  CL_OK(clReleaseCommandQueue(env->q));
  CL_OK(clReleaseContext(env->ctx));
}

static inline void print_build_log(cl_program p, cl_device_id dev) {
  size_t size = 0;
  if (clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS) return;
  char *log = calloc(size + 1, 1);
  if (log && clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, size, log, NULL) == CL_SUCCESS)
    fprintf(stderr, "build log:\n%s\n", log);
  free(log);
}

/* Builds `src` with `opts`; exits on failure after printing the build log. */
static inline cl_program build(env_t *env, const char *src, const char *opts) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(env->ctx, 1, &src, NULL, &err);
  CL_OK(err);
  err = clBuildProgram(p, 1, &env->dev, opts, NULL, NULL);
  if (err != CL_SUCCESS) {
    print_build_log(p, env->dev);
    fprintf(stderr, "FAIL: clBuildProgram -> %d (%s)\n", err, cl_err_name(err));
    exit(1);
  }
  return p;
}

static inline cl_kernel kernel(cl_program p, const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  CL_OK(err);
  return k;
}

static inline int finish(const char *name) {
  if (failures) {
    fprintf(stderr, "%s: %d check(s) failed\n", name, failures);
    return 1;
  }
  printf("%s: PASS\n", name);
  return 0;
}

#endif
