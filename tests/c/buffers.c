/* Buffer commands: create (copy/use/alloc host ptr), write, read, copy, fill, map/unmap,
 * the rect variants, sub-buffers, memory object queries, and a kernel that reads what the
 * host wrote. */
#include "common.h"

#define N 256

static void read_all(env_t *env, cl_mem m, void *dst, size_t size) {
  CL_OK(clEnqueueReadBuffer(env->q, m, CL_TRUE, 0, size, dst, 0, NULL, NULL));
}

int main(void) {
  env_t env = setup(0);
  cl_int err;
  int host[N], out[N];
  for (int i = 0; i < N; i++) host[i] = i * 3 + 1;

  /* COPY_HOST_PTR: the buffer holds a copy; later host changes do not reach it. */
  cl_mem a = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &err);
  CL_OK(err);
  host[0] = 12345;
  read_all(&env, a, out, sizeof out);
  CHECK(out[0] == 1 && out[N - 1] == (N - 1) * 3 + 1, "COPY_HOST_PTR contents: %d %d", out[0], out[N - 1]);
  host[0] = 1;

  /* Partial write at an offset, blocking and non-blocking. */
  int patch[4] = {-1, -2, -3, -4};
  CL_OK(clEnqueueWriteBuffer(env.q, a, CL_TRUE, 10 * sizeof(int), sizeof patch, patch, 0, NULL, NULL));
  cl_event ev;
  int patch2[2] = {-7, -8};
  CL_OK(clEnqueueWriteBuffer(env.q, a, CL_FALSE, 100 * sizeof(int), sizeof patch2, patch2, 0, NULL, &ev));
  CL_OK(clWaitForEvents(1, &ev));
  CL_OK(clReleaseEvent(ev));
  read_all(&env, a, out, sizeof out);
  for (int i = 0; i < N; i++) {
    int want = (i >= 10 && i < 14) ? patch[i - 10] : (i >= 100 && i < 102) ? patch2[i - 100] : i * 3 + 1;
    CHECK(out[i] == want, "after writes out[%d] = %d, expected %d", i, out[i], want);
  }
  /* Partial read at an offset. */
  int part[5] = {0};
  CL_OK(clEnqueueReadBuffer(env.q, a, CL_TRUE, 8 * sizeof(int), sizeof part, part, 0, NULL, NULL));
  CHECK(part[0] == 25 && part[2] == -1 && part[4] == -3, "partial read: %d %d %d", part[0], part[2], part[4]);

  /* Copy a region into another buffer. */
  cl_mem b = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, sizeof host, NULL, &err);
  CL_OK(err);
  int zero = 0;
  CL_OK(clEnqueueFillBuffer(env.q, b, &zero, sizeof zero, 0, sizeof host, 0, NULL, NULL));
  CL_OK(clEnqueueCopyBuffer(env.q, a, b, 0, 64 * sizeof(int), 32 * sizeof(int), 0, NULL, NULL));
  CL_OK(clFinish(env.q));
  read_all(&env, b, out, sizeof out);
  for (int i = 0; i < N; i++) {
    int want = 0;
    if (i >= 64 && i < 96) {
      int src = i - 64;
      want = (src >= 10 && src < 14) ? patch[src - 10] : src * 3 + 1;
    }
    CHECK(out[i] == want, "after copy out[%d] = %d, expected %d", i, out[i], want);
  }

  /* Fill with patterns of 1, 2, 4, 8 and 16 bytes. */
  unsigned char bytes[1024];
  cl_mem f = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, sizeof bytes, NULL, &err);
  CL_OK(err);
  unsigned char p1 = 0xAB;
  CL_OK(clEnqueueFillBuffer(env.q, f, &p1, 1, 0, sizeof bytes, 0, NULL, NULL));
  unsigned short p2 = 0x1234;
  CL_OK(clEnqueueFillBuffer(env.q, f, &p2, 2, 2, 8, 0, NULL, NULL));
  unsigned int p4 = 0xDEADBEEF;
  CL_OK(clEnqueueFillBuffer(env.q, f, &p4, 4, 16, 16, 0, NULL, NULL));
  unsigned long long p8 = 0x0102030405060708ULL;
  CL_OK(clEnqueueFillBuffer(env.q, f, &p8, 8, 64, 64, 0, NULL, NULL));
  unsigned char p16[16];
  for (int i = 0; i < 16; i++) p16[i] = (unsigned char)(0xF0 + i);
  CL_OK(clEnqueueFillBuffer(env.q, f, p16, 16, 512, 256, 0, NULL, NULL));
  read_all(&env, f, bytes, sizeof bytes);
  for (size_t i = 0; i < sizeof bytes; i++) {
    unsigned char want = 0xAB;
    if (i >= 2 && i < 10) want = ((const unsigned char *)&p2)[(i - 2) % 2];
    else if (i >= 16 && i < 32) want = ((const unsigned char *)&p4)[(i - 16) % 4];
    else if (i >= 64 && i < 128) want = ((const unsigned char *)&p8)[(i - 64) % 8];
    else if (i >= 512 && i < 768) want = p16[(i - 512) % 16];
    CHECK(bytes[i] == want, "fill byte %zu = %#x, expected %#x", i, bytes[i], want);
  }

  /* Map for reading, then map for writing (invalidate) and unmap. */
  int *m = clEnqueueMapBuffer(env.q, a, CL_TRUE, CL_MAP_READ, 0, sizeof host, 0, NULL, NULL, &err);
  CL_OK(err);
  CHECK(m != NULL && m[11] == -2 && m[200] == 601, "mapped read: %d %d", m ? m[11] : 0, m ? m[200] : 0);
  CL_OK(clEnqueueUnmapMemObject(env.q, a, m, 0, NULL, NULL));
  int *w = clEnqueueMapBuffer(env.q, a, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 16 * sizeof(int),
                              16 * sizeof(int), 0, NULL, NULL, &err);
  CL_OK(err);
  for (int i = 0; i < 16; i++) w[i] = 1000 + i;
  CL_OK(clEnqueueUnmapMemObject(env.q, a, w, 0, NULL, NULL));
  int *rw = clEnqueueMapBuffer(env.q, a, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 4 * sizeof(int), 0, NULL, NULL, &err);
  CL_OK(err);
  rw[0] = 77;
  CL_OK(clEnqueueUnmapMemObject(env.q, a, rw, 0, NULL, NULL));
  read_all(&env, a, out, sizeof out);
  CHECK(out[0] == 77, "map write out[0] = %d", out[0]);
  for (int i = 16; i < 32; i++) CHECK(out[i] == 1000 + i - 16, "map write out[%d] = %d", i, out[i]);
  CHECK(out[15] == 15 * 3 + 1 && out[32] == 32 * 3 + 1, "map write spilled: %d %d", out[15], out[32]);

  /* USE_HOST_PTR: mapping shows the buffer's data in host memory. */
  int uh[64];
  for (int i = 0; i < 64; i++) uh[i] = i;
  cl_mem u = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, sizeof uh, uh, &err);
  CL_OK(err);
  void *hp = NULL;
  CL_OK(clGetMemObjectInfo(u, CL_MEM_HOST_PTR, sizeof hp, &hp, NULL));
  CHECK(hp == uh, "CL_MEM_HOST_PTR %p, expected %p", hp, (void *)uh);
  int nine = 9;
  CL_OK(clEnqueueWriteBuffer(env.q, u, CL_TRUE, 5 * sizeof(int), sizeof nine, &nine, 0, NULL, NULL));
  int *um = clEnqueueMapBuffer(env.q, u, CL_TRUE, CL_MAP_READ, 0, sizeof uh, 0, NULL, NULL, &err);
  CL_OK(err);
  CHECK(um[5] == 9 && um[6] == 6, "USE_HOST_PTR map: %d %d", um[5], um[6]);
  CL_OK(clEnqueueUnmapMemObject(env.q, u, um, 0, NULL, NULL));
  CL_OK(clFinish(env.q));

  /* Rect: an 8x8 int matrix (row pitch 32 bytes). Read a 3x2 block from (2,1). */
  int mat[64], block[6] = {0};
  for (int i = 0; i < 64; i++) mat[i] = i;
  cl_mem r = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof mat, mat, &err);
  CL_OK(err);
  size_t borigin[3] = {2 * sizeof(int), 1, 0}, horigin[3] = {0, 0, 0}, region[3] = {3 * sizeof(int), 2, 1};
  CL_OK(clEnqueueReadBufferRect(env.q, r, CL_TRUE, borigin, horigin, region, 8 * sizeof(int), 0,
                                3 * sizeof(int), 0, block, 0, NULL, NULL));
  int wantb[6] = {10, 11, 12, 18, 19, 20};
  for (int i = 0; i < 6; i++) CHECK(block[i] == wantb[i], "read rect [%d] = %d, expected %d", i, block[i], wantb[i]);
  /* Write a 2x2 block of -1..-4 at (5,6) from a 4-wide host array at host origin (1,0). */
  int hsrc[8] = {0, -1, -2, 0, 0, -3, -4, 0};
  size_t borigin2[3] = {5 * sizeof(int), 6, 0}, horigin2[3] = {sizeof(int), 0, 0}, region2[3] = {2 * sizeof(int), 2, 1};
  CL_OK(clEnqueueWriteBufferRect(env.q, r, CL_TRUE, borigin2, horigin2, region2, 8 * sizeof(int), 0,
                                 4 * sizeof(int), 0, hsrc, 0, NULL, NULL));
  /* Copy the 3x2 block at (2,1) to (0,4) inside the same buffer (no overlap). */
  size_t so[3] = {2 * sizeof(int), 1, 0}, dorig[3] = {0, 4, 0};
  CL_OK(clEnqueueCopyBufferRect(env.q, r, r, so, dorig, region, 8 * sizeof(int), 0, 8 * sizeof(int), 0, 0, NULL, NULL));
  CL_OK(clFinish(env.q));
  int got[64];
  read_all(&env, r, got, sizeof got);
  int want[64];
  memcpy(want, mat, sizeof want);
  want[6 * 8 + 5] = -1; want[6 * 8 + 6] = -2; want[7 * 8 + 5] = -3; want[7 * 8 + 6] = -4;
  for (int y = 0; y < 2; y++)
    for (int x = 0; x < 3; x++) want[(4 + y) * 8 + x] = mat[(1 + y) * 8 + 2 + x];
  for (int i = 0; i < 64; i++) CHECK(got[i] == want[i], "rect result [%d] = %d, expected %d", i, got[i], want[i]);

  /* Sub-buffer at an aligned offset: writes through it land in the parent. */
  cl_uint align_bits = 0;
  CL_OK(clGetDeviceInfo(env.dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL));
  size_t align = align_bits / 8;
  if (align > 0 && align * 2 <= sizeof(int) * N) {
    cl_buffer_region reg = {align, 4 * sizeof(int)};
    cl_mem sub = clCreateSubBuffer(a, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    CL_OK(err);
    int four[4] = {-11, -12, -13, -14};
    CL_OK(clEnqueueWriteBuffer(env.q, sub, CL_TRUE, 0, sizeof four, four, 0, NULL, NULL));
    read_all(&env, a, out, sizeof out);
    size_t base = align / sizeof(int);
    for (int i = 0; i < 4; i++) CHECK(out[base + i] == four[i], "sub-buffer write [%d] = %d", i, out[base + i]);
    size_t sz = 0, off = 0;
    cl_mem parent = NULL;
    CL_OK(clGetMemObjectInfo(sub, CL_MEM_SIZE, sizeof sz, &sz, NULL));
    CL_OK(clGetMemObjectInfo(sub, CL_MEM_OFFSET, sizeof off, &off, NULL));
    CL_OK(clGetMemObjectInfo(sub, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL));
    CHECK(sz == 4 * sizeof(int) && off == align && parent == a, "sub-buffer info %zu %zu %p", sz, off, (void *)parent);
    CL_OK(clReleaseMemObject(sub));
  } else {
    CHECK(0, "CL_DEVICE_MEM_BASE_ADDR_ALIGN = %u bits is unusable", align_bits);
  }

  /* Memory object queries. */
  size_t sz = 0;
  cl_mem_flags flags = 0;
  cl_mem_object_type type = 0;
  cl_context c = NULL;
  cl_uint refs = 0;
  CL_OK(clGetMemObjectInfo(a, CL_MEM_SIZE, sizeof sz, &sz, NULL));
  CL_OK(clGetMemObjectInfo(a, CL_MEM_FLAGS, sizeof flags, &flags, NULL));
  CL_OK(clGetMemObjectInfo(a, CL_MEM_TYPE, sizeof type, &type, NULL));
  CL_OK(clGetMemObjectInfo(a, CL_MEM_CONTEXT, sizeof c, &c, NULL));
  CL_OK(clGetMemObjectInfo(a, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  CHECK(sz == sizeof host, "CL_MEM_SIZE %zu", sz);
  CHECK(flags == (CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR), "CL_MEM_FLAGS %#llx", (unsigned long long)flags);
  CHECK(type == CL_MEM_OBJECT_BUFFER, "CL_MEM_TYPE %#x", type);
  CHECK(c == env.ctx, "CL_MEM_CONTEXT");
  CHECK(refs >= 1, "CL_MEM_REFERENCE_COUNT %u", refs);

  /* A kernel sees what the host wrote and its output reaches the host. */
  const char *src =
      "__kernel void inc(__global int *p, __global const uchar *f) { size_t i = get_global_id(0);\n"
      "  p[i] = p[i] + f[0]; }\n";
  cl_program prog = build(&env, src, "");
  cl_kernel k = kernel(prog, "inc");
  CL_OK(clSetKernelArg(k, 0, sizeof b, &b));
  CL_OK(clSetKernelArg(k, 1, sizeof f, &f));
  size_t g = N;
  CL_OK(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
  CL_OK(clEnqueueReadBuffer(env.q, b, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  CHECK(out[0] == 0xAB && out[64] == 1 + 0xAB && out[200] == 0xAB, "kernel result %d %d %d", out[0], out[64], out[200]);

  /* Host access the creation flags forbid is refused (OpenCL 1.2, 5.2.2). */
  cl_mem hidden = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS, sizeof out, NULL, &err);
  CL_OK(err);
  err = clEnqueueReadBuffer(env.q, hidden, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
  CHECK(err == CL_INVALID_OPERATION, "read of a HOST_NO_ACCESS buffer -> %d", err);
  cl_mem shown = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE | CL_MEM_HOST_READ_ONLY, sizeof out, NULL, &err);
  CL_OK(err);
  err = clEnqueueWriteBuffer(env.q, shown, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
  CHECK(err == CL_INVALID_OPERATION, "write of a HOST_READ_ONLY buffer -> %d", err);

  CL_OK(clReleaseKernel(k));
  CL_OK(clReleaseProgram(prog));
  cl_mem all[] = {a, b, f, u, r, hidden, shown};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) CL_OK(clReleaseMemObject(all[i]));
  teardown(&env);
  return finish("buffers");
}
