/* API abuse: entry points called with NULL, garbage and wrong-type handles, zero and
 * oversized sizes, bad flags and bad wait lists. Every call must return an error code and
 * never crash, and valid objects must keep their data and keep working afterwards.
 *
 * A "garbage" handle starts with a real object's first word (the ICD dispatch pointer,
 * so the loader hands it to the platform) followed by junk: the platform must notice it
 * never made that object. Wrong-type handles are real objects of another type.
 *
 * With ABUSE_LENIENT=1 in the environment, the STRICT checks (garbage or wrong-type
 * handles, and a few argument checks) are skipped: platforms such as PoCL do not validate
 * handles and crash on them. With ABUSE_LENIENT=vendor only the VENDOR_STRICT checks are
 * skipped: argument checks a vendor makes itself with other error codes (or not at all),
 * which ShadowCL's forwarding mode passes through unchanged. */
#include "common.h"

#define N 64

typedef struct {
  void *dispatch;
  unsigned char junk[248];
} fake_t;

static fake_t fake_obj;
static int garbage = 1;
static int vendor_strict = 1;

/* A check that lax platforms fail or crash on: garbage or wrong-type handles, and
 * argument checks PoCL skips. Skipped when ABUSE_LENIENT=1. */
#define STRICT(...) \
  do {               \
    if (garbage) {   \
      __VA_ARGS__;   \
    }                \
  } while (0)

/* An argument check whose error code is the vendor's business (see above). */
#define VENDOR_STRICT(...)           \
  do {                               \
    if (garbage && vendor_strict) {  \
      __VA_ARGS__;                   \
    }                                \
  } while (0)


/* A create call that must return NULL and set errcode_ret (its last argument, `err`). */
#define EXPECT_NULL_ERR(code, call)                                          \
  do {                                                                       \
    err = CL_SUCCESS;                                                        \
    void *p_ = (void *)(call);                                               \
    if (p_ != NULL || err != (code)) {                                       \
      fprintf(stderr, "FAIL %s:%d: %s -> %p, %d (%s), expected NULL, %s\n",  \
              __FILE__, __LINE__, #call, p_, err, cl_err_name(err), #code); \
      failures++;                                                            \
    }                                                                        \
  } while (0)

static void *fake_from(void *real) {
  fake_obj.dispatch = *(void **)real;
  memset(fake_obj.junk, 0, sizeof fake_obj.junk);
  return &fake_obj;
}

int main(void) {
  const char *lenient = getenv("ABUSE_LENIENT");
  garbage = !(lenient && *lenient == '1');
  vendor_strict = garbage && !(lenient && strcmp(lenient, "vendor") == 0);
  env_t env = setup(0);
  cl_int err;
  int data[N], out[N];
  for (int i = 0; i < N; i++) data[i] = 0x1000 + i;
  cl_mem buf = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
  CL_OK(err);
  const char *src = "__kernel void twice(__global const int *in, __global int *out) {\n"
                    "  size_t i = get_global_id(0); out[i] = 2 * in[i]; }\n";
  cl_program prog = build(&env, src, "");
  cl_kernel k = kernel(prog, "twice");
  cl_mem dst = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, sizeof data, NULL, &err);
  CL_OK(err);

  cl_context fctx = fake_from(env.ctx);
  cl_device_id fdev = (cl_device_id)fctx;
  cl_command_queue fq = (cl_command_queue)fctx;
  cl_mem fmem = (cl_mem)fctx;
  cl_kernel fk = (cl_kernel)fctx;
  cl_program fprog = (cl_program)fctx;
  cl_event fev = (cl_event)fctx;
  char buf256[256];
  size_t sz;

  /* Platform and device queries. */
  EXPECT_ERR(CL_INVALID_VALUE, clGetPlatformIDs(0, NULL, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clGetPlatformInfo(env.plat, 0x7FFF, sizeof buf256, buf256, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clGetPlatformInfo(env.plat, CL_PLATFORM_NAME, 1, buf256, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clGetDeviceIDs(env.plat, CL_DEVICE_TYPE_ALL, 0, NULL, NULL));
  cl_device_id devs[1];
  EXPECT_FAIL(clGetDeviceIDs(env.plat, (cl_device_type)1 << 40, 1, devs, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clGetDeviceInfo(env.dev, 0x7FFF, sizeof buf256, buf256, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clGetDeviceInfo(env.dev, CL_DEVICE_NAME, 1, buf256, NULL));
  EXPECT_ERR(CL_INVALID_DEVICE, clGetDeviceInfo(NULL, CL_DEVICE_NAME, sizeof buf256, buf256, NULL));
  STRICT(EXPECT_ERR(CL_INVALID_DEVICE, clGetDeviceInfo(fdev, CL_DEVICE_NAME, sizeof buf256, buf256, NULL)));
  STRICT(EXPECT_ERR(CL_INVALID_DEVICE, clGetDeviceInfo((cl_device_id)env.ctx, CL_DEVICE_NAME, sizeof buf256, buf256, NULL)));

  /* Contexts. */
  cl_context c2;
  c2 = clCreateContext(NULL, 0, NULL, NULL, NULL, &err);
  CHECK(c2 == NULL && err == CL_INVALID_VALUE, "context with no devices: %d", err);
  c2 = clCreateContext(NULL, 1, NULL, NULL, NULL, &err);
  CHECK(c2 == NULL && err == CL_INVALID_VALUE, "context with NULL device list: %d", err);
  STRICT(c2 = clCreateContext(NULL, 1, &fdev, NULL, NULL, &err); CHECK(c2 == NULL && err == CL_INVALID_DEVICE, "context with a garbage device: %d", err));
  cl_device_id wrong_dev = (cl_device_id)buf;
  STRICT(c2 = clCreateContext(NULL, 1, &wrong_dev, NULL, NULL, &err); CHECK(c2 == NULL && err == CL_INVALID_DEVICE, "context with a buffer as device: %d", err));
  cl_context_properties badprops[] = {0x7FFF, 1, 0};
  c2 = clCreateContext(badprops, 1, &env.dev, NULL, NULL, &err);
  CHECK(c2 == NULL && err == CL_INVALID_PROPERTY, "context with a bad property: %d", err);
  c2 = clCreateContext(NULL, 1, &env.dev, NULL, &fake_obj, &err);
  CHECK(c2 == NULL && err == CL_INVALID_VALUE, "context with user_data but no callback: %d", err);
  EXPECT_ERR(CL_INVALID_CONTEXT, clGetContextInfo(NULL, CL_CONTEXT_NUM_DEVICES, sizeof sz, &sz, NULL));
  STRICT(EXPECT_ERR(CL_INVALID_CONTEXT, clGetContextInfo(fctx, CL_CONTEXT_NUM_DEVICES, sizeof sz, &sz, NULL)));
  STRICT(EXPECT_ERR(CL_INVALID_CONTEXT, clGetContextInfo((cl_context)env.q, CL_CONTEXT_NUM_DEVICES, sizeof sz, &sz, NULL)));
  EXPECT_ERR(CL_INVALID_VALUE, clGetContextInfo(env.ctx, 0x7FFF, sizeof sz, &sz, NULL));
  STRICT(EXPECT_ERR(CL_INVALID_CONTEXT, clRetainContext(fctx)));
  STRICT(EXPECT_ERR(CL_INVALID_CONTEXT, clReleaseContext((cl_context)buf)));

  /* Queues. */
  cl_command_queue q2;
  STRICT(q2 = clCreateCommandQueue(env.ctx, fdev, 0, &err); CHECK(q2 == NULL && err == CL_INVALID_DEVICE, "queue on a garbage device: %d", err));
  STRICT(q2 = clCreateCommandQueue((cl_context)buf, env.dev, 0, &err); CHECK(q2 == NULL && err == CL_INVALID_CONTEXT, "queue on a buffer as context: %d", err));
  q2 = clCreateCommandQueue(env.ctx, env.dev, (cl_command_queue_properties)1 << 40, &err);
  CHECK(q2 == NULL && err == CL_INVALID_VALUE, "queue with bogus properties: %d", err);
  EXPECT_ERR(CL_INVALID_COMMAND_QUEUE, clFinish(NULL));
  STRICT(EXPECT_ERR(CL_INVALID_COMMAND_QUEUE, clFinish(fq)));
  STRICT(EXPECT_ERR(CL_INVALID_COMMAND_QUEUE, clFlush((cl_command_queue)k)));
  EXPECT_ERR(CL_INVALID_VALUE, clGetCommandQueueInfo(env.q, 0x7FFF, sizeof sz, &sz, NULL));

  /* Buffers. */
  cl_mem m2;
  m2 = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, 0, NULL, &err);
  CHECK(m2 == NULL && err == CL_INVALID_BUFFER_SIZE, "zero-size buffer: %d", err);
  m2 = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, ~(size_t)0 / 2, NULL, &err);
  CHECK(m2 == NULL && err == CL_INVALID_BUFFER_SIZE, "huge buffer: %d", err);
  m2 = clCreateBuffer(env.ctx, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 16, NULL, &err);
  CHECK(m2 == NULL && err == CL_INVALID_VALUE, "read-only + write-only buffer: %d", err);
  m2 = clCreateBuffer(env.ctx, (cl_mem_flags)1 << 40, 16, NULL, &err);
  CHECK(m2 == NULL && err == CL_INVALID_VALUE, "bogus buffer flags: %d", err);
  m2 = clCreateBuffer(env.ctx, CL_MEM_COPY_HOST_PTR, 16, NULL, &err);
  CHECK(m2 == NULL && err == CL_INVALID_HOST_PTR, "COPY_HOST_PTR without a pointer: %d", err);
  m2 = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, 16, data, &err);
  CHECK(m2 == NULL && err == CL_INVALID_HOST_PTR, "host pointer without a flag: %d", err);
  STRICT(m2 = clCreateBuffer(fctx, CL_MEM_READ_WRITE, 16, NULL, &err); CHECK(m2 == NULL && err == CL_INVALID_CONTEXT, "buffer on a garbage context: %d", err));
  m2 = clCreateBuffer(NULL, CL_MEM_READ_WRITE, 16, NULL, &err);
  CHECK(m2 == NULL && err == CL_INVALID_CONTEXT, "buffer on a NULL context: %d", err);
  STRICT(EXPECT_ERR(CL_INVALID_MEM_OBJECT, clGetMemObjectInfo(fmem, CL_MEM_SIZE, sizeof sz, &sz, NULL)));
  STRICT(EXPECT_ERR(CL_INVALID_MEM_OBJECT, clGetMemObjectInfo((cl_mem)k, CL_MEM_SIZE, sizeof sz, &sz, NULL)));
  EXPECT_ERR(CL_INVALID_VALUE, clGetMemObjectInfo(buf, 0x7FFF, sizeof sz, &sz, NULL));
  EXPECT_ERR(CL_INVALID_MEM_OBJECT, clReleaseMemObject(NULL));
  STRICT(EXPECT_ERR(CL_INVALID_MEM_OBJECT, clRetainMemObject(fmem)));
  cl_buffer_region reg = {sizeof data, 16};
  m2 = clCreateSubBuffer(buf, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
  CHECK(m2 == NULL && err == CL_INVALID_VALUE, "sub-buffer out of range: %d", err);

  /* Buffer commands. */
  EXPECT_ERR(CL_INVALID_VALUE, clEnqueueReadBuffer(env.q, buf, CL_TRUE, 0, sizeof data + 4, out, 0, NULL, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clEnqueueReadBuffer(env.q, buf, CL_TRUE, ~(size_t)0 - 2, 8, out, 0, NULL, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clEnqueueReadBuffer(env.q, buf, CL_TRUE, 0, 4, NULL, 0, NULL, NULL));
  STRICT(EXPECT_ERR(CL_INVALID_MEM_OBJECT, clEnqueueReadBuffer(env.q, fmem, CL_TRUE, 0, 4, out, 0, NULL, NULL)));
  STRICT(EXPECT_ERR(CL_INVALID_MEM_OBJECT, clEnqueueReadBuffer(env.q, (cl_mem)prog, CL_TRUE, 0, 4, out, 0, NULL, NULL)));
  STRICT(EXPECT_ERR(CL_INVALID_COMMAND_QUEUE, clEnqueueReadBuffer(fq, buf, CL_TRUE, 0, 4, out, 0, NULL, NULL)));
  STRICT(EXPECT_ERR(CL_INVALID_COMMAND_QUEUE, clEnqueueReadBuffer((cl_command_queue)env.ctx, buf, CL_TRUE, 0, 4, out, 0, NULL, NULL)));
  EXPECT_ERR(CL_INVALID_EVENT_WAIT_LIST, clEnqueueReadBuffer(env.q, buf, CL_TRUE, 0, 4, out, 1, NULL, NULL));
  STRICT(EXPECT_ERR(CL_INVALID_EVENT_WAIT_LIST, clEnqueueReadBuffer(env.q, buf, CL_TRUE, 0, 4, out, 1, &fev, NULL)));
  cl_event not_an_event = (cl_event)buf;
  STRICT(EXPECT_ERR(CL_INVALID_EVENT_WAIT_LIST, clEnqueueReadBuffer(env.q, buf, CL_TRUE, 0, 4, out, 1, &not_an_event, NULL)));
  cl_event ev0 = NULL;
  EXPECT_ERR(CL_INVALID_EVENT_WAIT_LIST, clEnqueueReadBuffer(env.q, buf, CL_TRUE, 0, 4, out, 0, &ev0, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clEnqueueWriteBuffer(env.q, buf, CL_TRUE, 8, sizeof data, data, 0, NULL, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clEnqueueWriteBuffer(env.q, buf, CL_TRUE, 0, 4, NULL, 0, NULL, NULL));
  EXPECT_ERR(CL_INVALID_MEM_OBJECT, clEnqueueWriteBuffer(env.q, NULL, CL_TRUE, 0, 4, data, 0, NULL, NULL));
  int pat = 0;
  EXPECT_ERR(CL_INVALID_VALUE, clEnqueueFillBuffer(env.q, buf, &pat, 0, 0, 16, 0, NULL, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clEnqueueFillBuffer(env.q, buf, &pat, 3, 0, 12, 0, NULL, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clEnqueueFillBuffer(env.q, buf, &pat, 4, 0, 6, 0, NULL, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clEnqueueFillBuffer(env.q, buf, NULL, 4, 0, 16, 0, NULL, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clEnqueueFillBuffer(env.q, buf, &pat, 4, 0, sizeof data * 2, 0, NULL, NULL));
  EXPECT_ERR(CL_MEM_COPY_OVERLAP, clEnqueueCopyBuffer(env.q, buf, buf, 0, 8, 16, 0, NULL, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clEnqueueCopyBuffer(env.q, buf, dst, 0, sizeof data, 8, 0, NULL, NULL));
  STRICT(EXPECT_ERR(CL_INVALID_MEM_OBJECT, clEnqueueCopyBuffer(env.q, buf, fmem, 0, 0, 8, 0, NULL, NULL)));
  void *mp = clEnqueueMapBuffer(env.q, buf, CL_TRUE, CL_MAP_READ, 0, sizeof data * 2, 0, NULL, NULL, &err);
  CHECK(mp == NULL && err == CL_INVALID_VALUE, "map out of range: %d", err);
  STRICT(mp = clEnqueueMapBuffer(env.q, buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0, 16, 0, NULL, NULL, &err); CHECK(mp == NULL && err == CL_INVALID_VALUE, "map with conflicting flags: %d", err));
  EXPECT_ERR(CL_INVALID_VALUE, clEnqueueUnmapMemObject(env.q, buf, data, 0, NULL, NULL));
  size_t origin[3] = {0, 0, 0}, region[3] = {sizeof data, 2, 1};
  EXPECT_ERR(CL_INVALID_VALUE, clEnqueueReadBufferRect(env.q, buf, CL_TRUE, origin, origin, region, 0, 0, 0, 0, out, 0, NULL, NULL));
  size_t region0[3] = {0, 1, 1};
  EXPECT_ERR(CL_INVALID_VALUE, clEnqueueReadBufferRect(env.q, buf, CL_TRUE, origin, origin, region0, 0, 0, 0, 0, out, 0, NULL, NULL));

  /* Programs and kernels. */
  cl_program p2 = clCreateProgramWithSource(env.ctx, 0, NULL, NULL, &err);
  CHECK(p2 == NULL && err == CL_INVALID_VALUE, "program from no strings: %d", err);
  const char *nullstr[2] = {src, NULL};
  p2 = clCreateProgramWithSource(env.ctx, 2, nullstr, NULL, &err);
  CHECK(p2 == NULL && err == CL_INVALID_VALUE, "program with a NULL string: %d", err);
  STRICT(p2 = clCreateProgramWithSource(fctx, 1, &src, NULL, &err); CHECK(p2 == NULL && err == CL_INVALID_CONTEXT, "program on a garbage context: %d", err));
  unsigned char garbage_il[64];
  memset(garbage_il, 0xC3, sizeof garbage_il);
  p2 = clCreateProgramWithIL(env.ctx, garbage_il, sizeof garbage_il, &err);
  CHECK(p2 == NULL && err != CL_SUCCESS, "garbage IL accepted: %d", err);
  p2 = clCreateProgramWithIL(env.ctx, NULL, 0, &err);
  CHECK(p2 == NULL && err != CL_SUCCESS, "NULL IL accepted: %d", err);
  EXPECT_ERR(CL_INVALID_PROGRAM, clBuildProgram(NULL, 0, NULL, "", NULL, NULL));
  STRICT(EXPECT_ERR(CL_INVALID_PROGRAM, clBuildProgram(fprog, 0, NULL, "", NULL, NULL)));
  STRICT(EXPECT_ERR(CL_INVALID_PROGRAM, clBuildProgram((cl_program)buf, 0, NULL, "", NULL, NULL)));
  EXPECT_ERR(CL_INVALID_VALUE, clBuildProgram(prog, 1, NULL, "", NULL, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clBuildProgram(prog, 0, &env.dev, "", NULL, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clBuildProgram(prog, 0, NULL, "", NULL, &fake_obj));
  STRICT(EXPECT_ERR(CL_INVALID_DEVICE, clBuildProgram(prog, 1, &fdev, "", NULL, NULL)));
  EXPECT_ERR(CL_INVALID_VALUE, clGetProgramInfo(prog, 0x7FFF, sizeof sz, &sz, NULL));
  STRICT(EXPECT_ERR(CL_INVALID_DEVICE, clGetProgramBuildInfo(prog, fdev, CL_PROGRAM_BUILD_STATUS, sizeof sz, &sz, NULL)));
  cl_kernel k2 = clCreateKernel(prog, NULL, &err);
  CHECK(k2 == NULL && err == CL_INVALID_VALUE, "kernel with a NULL name: %d", err);
  k2 = clCreateKernel(prog, "nope", &err);
  CHECK(k2 == NULL && err == CL_INVALID_KERNEL_NAME, "kernel with an unknown name: %d", err);
  STRICT(k2 = clCreateKernel(fprog, "twice", &err); CHECK(k2 == NULL && err == CL_INVALID_PROGRAM, "kernel from a garbage program: %d", err));
  EXPECT_ERR(CL_INVALID_KERNEL, clSetKernelArg(NULL, 0, sizeof buf, &buf));
  STRICT(EXPECT_ERR(CL_INVALID_KERNEL, clSetKernelArg(fk, 0, sizeof buf, &buf)));
  STRICT(EXPECT_ERR(CL_INVALID_KERNEL, clSetKernelArg((cl_kernel)buf, 0, sizeof buf, &buf)));
  EXPECT_ERR(CL_INVALID_ARG_INDEX, clSetKernelArg(k, 99, sizeof buf, &buf));
  EXPECT_ERR(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 0, 1, &buf));
  STRICT(EXPECT_ERR(CL_INVALID_MEM_OBJECT, clSetKernelArg(k, 0, sizeof fmem, &fmem)));
  cl_mem kernel_as_mem = (cl_mem)k;
  STRICT(EXPECT_ERR(CL_INVALID_MEM_OBJECT, clSetKernelArg(k, 0, sizeof kernel_as_mem, &kernel_as_mem)));
  EXPECT_ERR(CL_INVALID_VALUE, clGetKernelInfo(k, 0x7FFF, sizeof sz, &sz, NULL));
  STRICT(EXPECT_ERR(CL_INVALID_KERNEL, clGetKernelInfo(fk, CL_KERNEL_NUM_ARGS, sizeof sz, &sz, NULL)));

  /* Launches. */
  CL_OK(clSetKernelArg(k, 0, sizeof buf, &buf));
  CL_OK(clSetKernelArg(k, 1, sizeof dst, &dst));
  size_t g = N, l = 8, big_l = 1 << 20, odd_l = 7, gz[3] = {N, 1, 1};
  size_t max_wg = 0;
  CL_OK(clGetDeviceInfo(env.dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL));
  EXPECT_ERR(CL_INVALID_WORK_DIMENSION, clEnqueueNDRangeKernel(env.q, k, 0, NULL, &g, NULL, 0, NULL, NULL));
  EXPECT_ERR(CL_INVALID_WORK_DIMENSION, clEnqueueNDRangeKernel(env.q, k, 4, NULL, gz, NULL, 0, NULL, NULL));
  /* A NULL global size is no abuse from OpenCL 2.1 on: an empty launch (cts_rules.c). */
  if (big_l > max_wg)
    EXPECT_FAIL(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &big_l, &big_l, 0, NULL, NULL));
  EXPECT_ERR(CL_INVALID_WORK_GROUP_SIZE, clEnqueueNDRangeKernel(env.q, k, 1, NULL, &g, &odd_l, 0, NULL, NULL));
  size_t huge_off = ~(size_t)0 - 4;
  STRICT(EXPECT_ERR(CL_INVALID_GLOBAL_OFFSET, clEnqueueNDRangeKernel(env.q, k, 1, &huge_off, &g, NULL, 0, NULL, NULL)));
  STRICT(EXPECT_ERR(CL_INVALID_KERNEL, clEnqueueNDRangeKernel(env.q, fk, 1, NULL, &g, NULL, 0, NULL, NULL)));
  STRICT(EXPECT_ERR(CL_INVALID_KERNEL, clEnqueueNDRangeKernel(env.q, (cl_kernel)buf, 1, NULL, &g, NULL, 0, NULL, NULL)));
  STRICT(EXPECT_ERR(CL_INVALID_COMMAND_QUEUE, clEnqueueNDRangeKernel(fq, k, 1, NULL, &g, NULL, 0, NULL, NULL)));
  STRICT(EXPECT_ERR(CL_INVALID_EVENT_WAIT_LIST, clEnqueueNDRangeKernel(env.q, k, 1, NULL, &g, NULL, 1, &fev, NULL)));

  /* Images and samplers: bad formats, descriptors, sizes, and garbage / wrong-type handles.
   * PoCL accepts several of these (STRICT). */
  {
    cl_image_format rgba = {CL_RGBA, CL_UNORM_INT8};
    cl_image_format bad_fmt = {CL_RGB, CL_UNORM_INT8};
    cl_image_desc d2;
    memset(&d2, 0, sizeof d2);
    d2.image_type = CL_MEM_OBJECT_IMAGE2D;
    d2.image_width = 4;
    d2.image_height = 4;
    cl_mem img = clCreateImage(env.ctx, CL_MEM_READ_WRITE, &rgba, &d2, NULL, &err);
    CL_OK(err);
    EXPECT_NULL_ERR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, clCreateImage(env.ctx, 0, NULL, &d2, NULL, &err));
    VENDOR_STRICT(EXPECT_NULL_ERR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, clCreateImage(env.ctx, 0, &bad_fmt, &d2, NULL, &err)));
    EXPECT_NULL_ERR(CL_INVALID_IMAGE_DESCRIPTOR, clCreateImage(env.ctx, 0, &rgba, NULL, NULL, &err));
    cl_image_desc dz = d2;
    dz.image_width = 0;
    VENDOR_STRICT(EXPECT_NULL_ERR(CL_INVALID_IMAGE_SIZE, clCreateImage(env.ctx, 0, &rgba, &dz, NULL, &err)));
    dz.image_width = (size_t)1 << 40;
    VENDOR_STRICT(EXPECT_NULL_ERR(CL_INVALID_IMAGE_SIZE, clCreateImage(env.ctx, 0, &rgba, &dz, NULL, &err)));
    cl_image_desc dt = d2;
    dt.image_type = CL_MEM_OBJECT_BUFFER;
    VENDOR_STRICT(EXPECT_NULL_ERR(CL_INVALID_IMAGE_DESCRIPTOR, clCreateImage(env.ctx, 0, &rgba, &dt, NULL, &err)));
    EXPECT_NULL_ERR(CL_INVALID_HOST_PTR, clCreateImage(env.ctx, CL_MEM_COPY_HOST_PTR, &rgba, &d2, NULL, &err));
    EXPECT_NULL_ERR(CL_INVALID_CONTEXT, clCreateImage(NULL, 0, &rgba, &d2, NULL, &err));
    STRICT(EXPECT_NULL_ERR(CL_INVALID_CONTEXT, clCreateImage(fctx, 0, &rgba, &d2, NULL, &err)));
    EXPECT_ERR(CL_INVALID_MEM_OBJECT, clGetImageInfo(NULL, CL_IMAGE_WIDTH, sizeof sz, &sz, NULL));
    STRICT(EXPECT_ERR(CL_INVALID_MEM_OBJECT, clGetImageInfo(fmem, CL_IMAGE_WIDTH, sizeof sz, &sz, NULL)));
    STRICT(EXPECT_ERR(CL_INVALID_MEM_OBJECT, clGetImageInfo(buf, CL_IMAGE_WIDTH, sizeof sz, &sz, NULL)));
    EXPECT_ERR(CL_INVALID_VALUE, clGetImageInfo(img, 0x7FFF, sizeof sz, &sz, NULL));
    size_t o[3] = {0, 0, 0}, r[3] = {4, 4, 1}, big[3] = {5, 4, 1};
    unsigned char px[4 * 4 * 4];
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueReadImage(env.q, img, CL_TRUE, o, big, 0, 0, px, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueReadImage(env.q, img, CL_TRUE, o, r, 0, 0, NULL, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_MEM_OBJECT, clEnqueueReadImage(env.q, buf, CL_TRUE, o, r, 0, 0, px, 0, NULL, NULL));
    STRICT(EXPECT_ERR(CL_INVALID_MEM_OBJECT, clEnqueueReadBuffer(env.q, img, CL_TRUE, 0, 4, px, 0, NULL, NULL)));
    STRICT(EXPECT_ERR(CL_INVALID_COMMAND_QUEUE, clEnqueueReadImage(fq, img, CL_TRUE, o, r, 0, 0, px, 0, NULL, NULL)));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueFillImage(env.q, img, NULL, o, r, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clGetSupportedImageFormats(env.ctx, CL_MEM_READ_ONLY, 0x7FFF, 0, NULL, NULL));
    VENDOR_STRICT(EXPECT_NULL_ERR(CL_INVALID_VALUE, clCreateSampler(env.ctx, CL_TRUE, 0x7FFF, CL_FILTER_NEAREST, &err)));
    EXPECT_NULL_ERR(CL_INVALID_CONTEXT, clCreateSampler(NULL, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err));
    cl_sampler fs = (cl_sampler)fctx;
    EXPECT_ERR(CL_INVALID_SAMPLER, clRetainSampler(NULL));
    STRICT(EXPECT_ERR(CL_INVALID_SAMPLER, clReleaseSampler(fs)));
    STRICT(EXPECT_ERR(CL_INVALID_SAMPLER, clGetSamplerInfo((cl_sampler)buf, CL_SAMPLER_FILTER_MODE, sizeof sz, &sz, NULL)));
    /* A sampler is not a buffer argument, a buffer is not an image. */
    cl_sampler smp = clCreateSampler(env.ctx, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
    CL_OK(err);
    STRICT(EXPECT_ERR(CL_INVALID_MEM_OBJECT, clSetKernelArg(k, 0, sizeof smp, &smp)));
    STRICT(EXPECT_ERR(CL_INVALID_MEM_OBJECT, clSetKernelArg(k, 0, sizeof img, &img)));
    CL_OK(clReleaseSampler(smp));
    CL_OK(clReleaseMemObject(img));
  }

  /* Events. */
  EXPECT_ERR(CL_INVALID_VALUE, clWaitForEvents(0, NULL));
  EXPECT_ERR(CL_INVALID_VALUE, clWaitForEvents(1, NULL));
  STRICT(EXPECT_ERR(CL_INVALID_EVENT, clWaitForEvents(1, &fev)));
  STRICT(EXPECT_ERR(CL_INVALID_EVENT, clGetEventInfo(fev, CL_EVENT_COMMAND_TYPE, sizeof sz, &sz, NULL)));
  STRICT(EXPECT_ERR(CL_INVALID_EVENT, clGetEventInfo((cl_event)k, CL_EVENT_COMMAND_TYPE, sizeof sz, &sz, NULL)));
  EXPECT_ERR(CL_INVALID_EVENT, clReleaseEvent(NULL));
  STRICT(EXPECT_ERR(CL_INVALID_EVENT, clRetainEvent(fev)));
  cl_event ue = clCreateUserEvent(env.ctx, &err);
  CL_OK(err);
  EXPECT_ERR(CL_INVALID_VALUE, clSetUserEventStatus(ue, CL_SUBMITTED));
  EXPECT_ERR(CL_INVALID_VALUE, clGetEventInfo(ue, 0x7FFF, sizeof sz, &sz, NULL));
  EXPECT_ERR(CL_PROFILING_INFO_NOT_AVAILABLE, clGetEventProfilingInfo(ue, CL_PROFILING_COMMAND_START, sizeof(cl_ulong), buf256, NULL));
  CL_OK(clSetUserEventStatus(ue, CL_COMPLETE));
  EXPECT_ERR(CL_INVALID_OPERATION, clSetUserEventStatus(ue, CL_COMPLETE));
  cl_event marker;
  CL_OK(clEnqueueMarkerWithWaitList(env.q, 0, NULL, &marker));
  CL_OK(clWaitForEvents(1, &marker));
  EXPECT_ERR(CL_INVALID_EVENT, clSetUserEventStatus(marker, CL_COMPLETE));
  EXPECT_ERR(CL_INVALID_VALUE, clSetEventCallback(marker, CL_COMPLETE, NULL, NULL));
  CL_OK(clReleaseEvent(marker));
  CL_OK(clReleaseEvent(ue));

  /* The garbage handle's junk changed; nothing may have looked at it differently. Try
   * junk that is not zero, too. */
  memset(fake_obj.junk, 0xA5, sizeof fake_obj.junk);
  STRICT(EXPECT_ERR(CL_INVALID_MEM_OBJECT, clGetMemObjectInfo(fmem, CL_MEM_SIZE, sizeof sz, &sz, NULL)));
  STRICT(EXPECT_ERR(CL_INVALID_KERNEL, clSetKernelArg(fk, 0, sizeof buf, &buf)));
  STRICT(EXPECT_ERR(CL_INVALID_COMMAND_QUEUE, clFinish(fq)));
  STRICT(EXPECT_ERR(CL_INVALID_EVENT, clWaitForEvents(1, &fev)));

  /* Valid objects are intact and still work. */
  CL_OK(clEnqueueReadBuffer(env.q, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (int i = 0; i < N; i++) CHECK(out[i] == data[i], "buffer changed by rejected calls: [%d] = %#x", i, out[i]);
  CL_OK(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &g, &l, 0, NULL, NULL));
  CL_OK(clEnqueueReadBuffer(env.q, dst, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (int i = 0; i < N; i++) CHECK(out[i] == 2 * data[i], "kernel after abuse: [%d] = %#x", i, out[i]);
  size_t ndev = 0;
  CL_OK(clGetContextInfo(env.ctx, CL_CONTEXT_NUM_DEVICES, sizeof ndev, &ndev, NULL));
  CHECK(ndev == 1, "context devices %zu", ndev);

  CL_OK(clReleaseKernel(k));
  CL_OK(clReleaseProgram(prog));
  CL_OK(clReleaseMemObject(buf));
  CL_OK(clReleaseMemObject(dst));
  teardown(&env);
  return finish("api_abuse");
}
