/* API rules the Khronos OpenCL-CTS checks and ShadowCL once broke (#16): clSetKernelArg does
 * not retain memory objects; zero-sized NDRanges; CL_KERNEL_ATTRIBUTES; invalid context
 * property values and device types; -cl-uniform-work-group-size; no read-write image
 * formats and no 2-D images from buffers on a device that offers neither. */
#include "common.h"

static const char *SRC =
    "__kernel void fill(__global int *p) { p[get_global_id(0)] = 7; }\n"
    "__kernel void img(__read_only image2d_t i, __global int *p) {\n"
    "  p[0] = get_image_width(i);\n"
    "}\n"
    "__attribute__((vec_type_hint(float4)))\n"
    "__attribute__((reqd_work_group_size(1,2,4)))\n"
    "__attribute__((work_group_size_hint(2,2,2)))\n"
    "__kernel void attrs(__global int *p) { p[0] = 1; }\n";

static int destroyed[4];

static void CL_CALLBACK on_destroy(cl_mem m, void *user) {
  (void)m;
  destroyed[(intptr_t)user]++;
}

/* clSetKernelArg does not retain a buffer or an image: releasing them after setting them
 * destroys them; an enqueued command does keep its arguments until it completes. */
static void retain_rule(env_t *env, cl_program p) {
  cl_int err;
  cl_kernel k = kernel(p, "fill");
  cl_mem b = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
  CL_OK(err);
  CL_OK(clSetMemObjectDestructorCallback(b, on_destroy, (void *)0));
  CL_OK(clSetKernelArg(k, 0, sizeof b, &b));
  CL_OK(clReleaseMemObject(b));
  CHECK(destroyed[0] == 1, "buffer released after clSetKernelArg: destructor ran %d times",
        destroyed[0]);
  /* The argument names a destroyed object now: refused, not run. */
  size_t g = 64;
  cl_int rc = clEnqueueNDRangeKernel(env->q, k, 1, NULL, &g, NULL, 0, NULL, NULL);
  CHECK(rc == CL_INVALID_KERNEL_ARGS || rc == CL_INVALID_MEM_OBJECT,
        "launch with a destroyed buffer argument: %d (%s)", rc, cl_err_name(rc));

  /* Held by a queued command: destroyed only once it completes. */
  cl_mem b2 = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
  CL_OK(err);
  CL_OK(clSetMemObjectDestructorCallback(b2, on_destroy, (void *)1));
  CL_OK(clSetKernelArg(k, 0, sizeof b2, &b2));
  cl_event gate = clCreateUserEvent(env->ctx, &err);
  CL_OK(err);
  CL_OK(clEnqueueNDRangeKernel(env->q, k, 1, NULL, &g, NULL, 1, &gate, NULL));
  CL_OK(clReleaseMemObject(b2));
  CHECK(destroyed[1] == 0, "buffer of a queued command destroyed before it ran");
  CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
  CL_OK(clFinish(env->q));
  CL_OK(clReleaseEvent(gate));
  CHECK(destroyed[1] == 1, "buffer not destroyed once its command completed: %d", destroyed[1]);
  CL_OK(clReleaseKernel(k));

  /* Images too. */
  cl_kernel ki = kernel(p, "img");
  cl_image_format f = {CL_RGBA, CL_UNORM_INT8};
  cl_image_desc d;
  memset(&d, 0, sizeof d);
  d.image_type = CL_MEM_OBJECT_IMAGE2D;
  d.image_width = 4;
  d.image_height = 4;
  cl_mem im = clCreateImage(env->ctx, CL_MEM_READ_ONLY, &f, &d, NULL, &err);
  CL_OK(err);
  CL_OK(clSetMemObjectDestructorCallback(im, on_destroy, (void *)2));
  CL_OK(clSetKernelArg(ki, 0, sizeof im, &im));
  CL_OK(clReleaseMemObject(im));
  CHECK(destroyed[2] == 1, "image released after clSetKernelArg: destructor ran %d times",
        destroyed[2]);
  CL_OK(clReleaseKernel(ki));
}

/* OpenCL 2.1 on: a NULL or zero global size is an empty launch whose event completes. */
static void zero_sized(env_t *env, cl_program p) {
  cl_int err;
  cl_kernel k = kernel(p, "fill");
  int zero[4] = {0};
  cl_mem b = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero,
                            zero, &err);
  CL_OK(err);
  CL_OK(clSetKernelArg(k, 0, sizeof b, &b));
  size_t g1 = 0, g3[3] = {4, 0, 1};
  cl_event ev = NULL;
  CL_OK(clEnqueueNDRangeKernel(env->q, k, 1, NULL, NULL, NULL, 0, NULL, NULL));
  CL_OK(clEnqueueNDRangeKernel(env->q, k, 1, NULL, &g1, NULL, 0, NULL, NULL));
  CL_OK(clEnqueueNDRangeKernel(env->q, k, 3, NULL, g3, NULL, 0, NULL, &ev));
  CL_OK(clWaitForEvents(1, &ev));
  cl_int status = -1;
  CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  CHECK(status == CL_COMPLETE, "zero-sized launch event status %d", status);
  int out[4] = {1, 1, 1, 1};
  CL_OK(clEnqueueReadBuffer(env->q, b, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (int i = 0; i < 4; i++) CHECK(out[i] == 0, "zero-sized launch wrote [%d] = %d", i, out[i]);
  CL_OK(clReleaseEvent(ev));
  CL_OK(clReleaseMemObject(b));
  CL_OK(clReleaseKernel(k));
}

/* CL_KERNEL_ATTRIBUTES names the source attributes (the CTS compares without spaces). */
static void attributes(cl_program p) {
  cl_kernel k = kernel(p, "attrs");
  char text[512] = "", packed[512] = "";
  CL_OK(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, sizeof text, text, NULL));
  size_t j = 0;
  for (size_t i = 0; text[i] && j + 1 < sizeof packed; i++)
    if (text[i] != ' ') packed[j++] = text[i];
  static const char *want[3] = {"vec_type_hint(float4)", "reqd_work_group_size(1,2,4)",
                                "work_group_size_hint(2,2,2)"};
  for (int i = 0; i < 3; i++)
    CHECK(strstr(packed, want[i]) != NULL, "CL_KERNEL_ATTRIBUTES '%s' lacks %s", text, want[i]);
  CL_OK(clReleaseKernel(k));
}

static void properties_and_types(env_t *env) {
  cl_int err;
  cl_context_properties bad[] = {CL_CONTEXT_INTEROP_USER_SYNC, -1, 0};
  cl_context c = clCreateContext(bad, 1, &env->dev, NULL, NULL, &err);
  CHECK(c == NULL && err == CL_INVALID_PROPERTY, "INTEROP_USER_SYNC = -1: %d (%s)", err,
        cl_err_name(err));
  /* The loader needs the platform to reach it. */
  cl_context_properties bad_on[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)env->plat,
                                    CL_CONTEXT_INTEROP_USER_SYNC, -1, 0};
  c = clCreateContextFromType(bad_on, CL_DEVICE_TYPE_ALL, NULL, NULL, &err);
  CHECK(c == NULL && err == CL_INVALID_PROPERTY, "from type, INTEROP_USER_SYNC = -1: %d (%s)",
        err, cl_err_name(err));
  cl_context_properties good[] = {CL_CONTEXT_INTEROP_USER_SYNC, CL_TRUE, 0};
  c = clCreateContext(good, 1, &env->dev, NULL, NULL, &err);
  CL_OK(err);
  CL_OK(clReleaseContext(c));
  cl_device_id d = NULL;
  EXPECT_ERR(CL_INVALID_DEVICE_TYPE, clGetDeviceIDs(env->plat, 0, 1, &d, NULL));
  cl_context_properties on[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)env->plat, 0};
  c = clCreateContextFromType(on, 0, NULL, NULL, &err);
  CHECK(c == NULL && err == CL_INVALID_DEVICE_TYPE, "context from type 0: %d (%s)", err,
        cl_err_name(err));
}

/* -cl-uniform-work-group-size: an OpenCL C 3.0 program refuses a non-uniform NDRange. */
static void uniform_work_groups(env_t *env) {
  cl_int err;
  int data[4];
  cl_mem b = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, sizeof data, NULL, &err);
  CL_OK(err);
  size_t g = 4, uniform = 2, ragged = 3;
  for (int uni = 0; uni < 2; uni++) {
    cl_program p = build(env, SRC, uni ? "-cl-std=CL3.0 -cl-uniform-work-group-size"
                                       : "-cl-std=CL3.0");
    cl_kernel k = kernel(p, "fill");
    CL_OK(clSetKernelArg(k, 0, sizeof b, &b));
    CL_OK(clEnqueueNDRangeKernel(env->q, k, 1, NULL, &g, &uniform, 0, NULL, NULL));
    cl_int rc = clEnqueueNDRangeKernel(env->q, k, 1, NULL, &g, &ragged, 0, NULL, NULL);
    if (uni)
      CHECK(rc == CL_INVALID_WORK_GROUP_SIZE, "non-uniform launch with "
            "-cl-uniform-work-group-size: %d (%s)", rc, cl_err_name(rc));
    else
      CHECK(rc == CL_SUCCESS, "non-uniform launch of an OpenCL C 3.0 program: %d (%s)", rc,
            cl_err_name(rc));
    CL_OK(clFinish(env->q));
    CL_OK(clReleaseKernel(k));
    CL_OK(clReleaseProgram(p));
  }
  CL_OK(clReleaseMemObject(b));
}

static void image_support(env_t *env) {
  cl_int err;
  cl_uint rw_args = 1, n = 1;
  CL_OK(clGetDeviceInfo(env->dev, CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, sizeof rw_args, &rw_args,
                        NULL));
  CL_OK(clGetSupportedImageFormats(env->ctx, CL_MEM_KERNEL_READ_AND_WRITE, CL_MEM_OBJECT_IMAGE2D,
                                   0, NULL, &n));
  CHECK(rw_args != 0 || n == 0, "no read-write image arguments but %u read-write formats", n);
  CL_OK(clGetSupportedImageFormats(env->ctx, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 0, NULL,
                                   &n));
  CHECK(n > 0, "no read-only 2-D image format");

  cl_uint pitch = 1;
  CL_OK(clGetDeviceInfo(env->dev, CL_DEVICE_IMAGE_PITCH_ALIGNMENT, sizeof pitch, &pitch, NULL));
  if (pitch == 0) {
    cl_mem b = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY, 16 * 16 * 4, NULL, &err);
    CL_OK(err);
    cl_image_format f = {CL_RGBA, CL_UNORM_INT8};
    cl_image_desc d;
    memset(&d, 0, sizeof d);
    d.image_type = CL_MEM_OBJECT_IMAGE2D;
    d.image_width = 16;
    d.image_height = 16;
    d.mem_object = b;
    cl_mem im = clCreateImage(env->ctx, CL_MEM_READ_ONLY, &f, &d, NULL, &err);
    CHECK(im == NULL && err == CL_INVALID_OPERATION, "2-D image from a buffer: %d (%s)", err,
          cl_err_name(err));
    CL_OK(clReleaseMemObject(b));
  }
}

int main(void) {
  env_t env = setup(0);
  cl_program p = build(&env, SRC, "");
  retain_rule(&env, p);
  zero_sized(&env, p);
  attributes(p);
  properties_and_types(&env);
  uniform_work_groups(&env);
  image_support(&env);
  CL_OK(clReleaseProgram(p));
  teardown(&env);
  return finish("cts_rules");
}
