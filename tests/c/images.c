/* Images and samplers end to end: device limits, supported formats, creation with host
 * pointers and pitches, queries, read/write/copy/fill/map commands, image <-> buffer
 * copies, kernel image and sampler arguments (with their argument info), and a kernel that
 * samples one image and writes another. Everything is checked against values computed
 * here, so the same host passes on any conforming platform. */
#include "common.h"

#define W 4
#define H 3

static const char *src =
    "__kernel void blur(__read_only image2d_t in, __write_only image2d_t out, sampler_t s) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  /* Unnormalized linear sampling midway between texels x and x+1 (clamped at the edge). */\n"
    "  float4 v = read_imagef(in, s, (float2)(x + 1.0f, y + 0.5f));\n"
    "  write_imagef(out, (int2)(x, y), v);\n"
    "}\n"
    "__kernel void to_int(__read_only image3d_t in, __global int *sizes, __write_only image2d_t out) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  uint4 a = read_imageui(in, (int4)(x, y, 0, 0));\n"
    "  uint4 b = read_imageui(in, (int4)(x, y, 1, 0));\n"
    "  write_imageui(out, (int2)(x, y), a + b);\n"
    "  if (x == 0 && y == 0) {\n"
    "    int4 d = get_image_dim(in);\n"
    "    sizes[0] = d.x; sizes[1] = d.y; sizes[2] = d.z;\n"
    "    sizes[3] = get_image_channel_data_type(in) == CLK_UNSIGNED_INT8;\n"
    "  }\n"
    "}\n";

int main(void) {
  env_t env = setup(0);
  cl_int err;
  cl_bool images = CL_FALSE;
  CL_OK(clGetDeviceInfo(env.dev, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL));
  if (!images) {
    printf("images: no image support\n");
    return 77;
  }
  size_t w2 = 0, w3 = 0;
  cl_uint samplers = 0;
  CL_OK(clGetDeviceInfo(env.dev, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof w2, &w2, NULL));
  CL_OK(clGetDeviceInfo(env.dev, CL_DEVICE_IMAGE3D_MAX_DEPTH, sizeof w3, &w3, NULL));
  CL_OK(clGetDeviceInfo(env.dev, CL_DEVICE_MAX_SAMPLERS, sizeof samplers, &samplers, NULL));
  CHECK(w2 >= 8192 && w3 >= 2048 && samplers >= 16, "limits below the full profile: %zu %zu %u", w2, w3, samplers);

  /* The OpenCL 1.2 minimum formats are all there. */
  cl_uint nf = 0;
  CL_OK(clGetSupportedImageFormats(env.ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &nf));
  cl_image_format *fmts = calloc(nf, sizeof *fmts);
  CL_OK(clGetSupportedImageFormats(env.ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, nf, fmts, NULL));
  cl_image_format need[] = {
      {CL_RGBA, CL_UNORM_INT8},   {CL_RGBA, CL_UNORM_INT16},   {CL_RGBA, CL_SIGNED_INT8},
      {CL_RGBA, CL_SIGNED_INT16}, {CL_RGBA, CL_SIGNED_INT32},  {CL_RGBA, CL_UNSIGNED_INT8},
      {CL_RGBA, CL_UNSIGNED_INT16}, {CL_RGBA, CL_UNSIGNED_INT32}, {CL_RGBA, CL_HALF_FLOAT},
      {CL_RGBA, CL_FLOAT},        {CL_BGRA, CL_UNORM_INT8}};
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
    int found = 0;
    for (cl_uint j = 0; j < nf; j++)
      found |= fmts[j].image_channel_order == need[i].image_channel_order &&
               fmts[j].image_channel_data_type == need[i].image_channel_data_type;
    CHECK(found, "format %#x/%#x missing", need[i].image_channel_order, need[i].image_channel_data_type);
  }
  free(fmts);

  /* A float image from host memory with a padded row pitch (5 texels per row). */
  cl_image_format rgba_f = {CL_RGBA, CL_FLOAT};
  float host[H][5][4];
  memset(host, 0, sizeof host);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      for (int c = 0; c < 4; c++) host[y][x][c] = (float)(10 * y + 2 * x + (c == 3 ? 0 : c));
  cl_image_desc d2;
  memset(&d2, 0, sizeof d2);
  d2.image_type = CL_MEM_OBJECT_IMAGE2D;
  d2.image_width = W;
  d2.image_height = H;
  d2.image_row_pitch = sizeof host[0];
  cl_mem in = clCreateImage(env.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &rgba_f, &d2, host, &err);
  CL_OK(err);
  d2.image_row_pitch = 0;
  cl_mem out = clCreateImage(env.ctx, CL_MEM_WRITE_ONLY, &rgba_f, &d2, NULL, &err);
  CL_OK(err);
  size_t v = 0;
  CL_OK(clGetImageInfo(in, CL_IMAGE_WIDTH, sizeof v, &v, NULL));
  CHECK(v == W, "CL_IMAGE_WIDTH %zu", v);
  CL_OK(clGetImageInfo(in, CL_IMAGE_ELEMENT_SIZE, sizeof v, &v, NULL));
  CHECK(v == 16, "CL_IMAGE_ELEMENT_SIZE %zu", v);
  cl_mem_object_type mt = 0;
  CL_OK(clGetMemObjectInfo(in, CL_MEM_TYPE, sizeof mt, &mt, NULL));
  CHECK(mt == CL_MEM_OBJECT_IMAGE2D, "CL_MEM_TYPE %#x", mt);

  cl_sampler s = clCreateSampler(env.ctx, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR, &err);
  CL_OK(err);
  cl_addressing_mode am = 0;
  CL_OK(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof am, &am, NULL));
  CHECK(am == CL_ADDRESS_CLAMP_TO_EDGE, "CL_SAMPLER_ADDRESSING_MODE %#x", am);

  cl_program p = build(&env, src, "-cl-kernel-arg-info");
  cl_kernel blur = kernel(p, "blur");
  cl_kernel_arg_access_qualifier aq = 0;
  CL_OK(clGetKernelArgInfo(blur, 0, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof aq, &aq, NULL));
  CHECK(aq == CL_KERNEL_ARG_ACCESS_READ_ONLY, "arg 0 access %#x", aq);
  CL_OK(clGetKernelArgInfo(blur, 1, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof aq, &aq, NULL));
  CHECK(aq == CL_KERNEL_ARG_ACCESS_WRITE_ONLY, "arg 1 access %#x", aq);
  char tname[64] = "";
  CL_OK(clGetKernelArgInfo(blur, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof tname, tname, NULL));
  CHECK(strcmp(tname, "image2d_t") == 0, "arg 0 type %s", tname);
  /* Kinds are checked: a sampler is not an image, an image is not a sampler (PoCL does not
   * check: skipped with ABUSE_LENIENT=1). */
  const char *lenient = getenv("ABUSE_LENIENT");
  if (!(lenient && *lenient == '1')) {
    EXPECT_FAIL(clSetKernelArg(blur, 0, sizeof s, &s));
    EXPECT_ERR(CL_INVALID_SAMPLER, clSetKernelArg(blur, 2, sizeof in, &in));
  }
  CL_OK(clSetKernelArg(blur, 0, sizeof in, &in));
  CL_OK(clSetKernelArg(blur, 1, sizeof out, &out));
  CL_OK(clSetKernelArg(blur, 2, sizeof s, &s));
  size_t g[2] = {W, H};
  CL_OK(clEnqueueNDRangeKernel(env.q, blur, 2, NULL, g, NULL, 0, NULL, NULL));
  float res[H][W][4];
  size_t o[3] = {0, 0, 0}, r[3] = {W, H, 1};
  CL_OK(clEnqueueReadImage(env.q, out, CL_TRUE, o, r, 0, 0, res, 0, NULL, NULL));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      for (int c = 0; c < 4; c++) {
        int x1 = x + 1 < W ? x + 1 : W - 1;
        float want = 0.5f * host[y][x][c] + 0.5f * host[y][x1][c];
        CHECK(res[y][x][c] == want, "blur (%d,%d).%d = %g, want %g", x, y, c, res[y][x][c], want);
      }

  /* Fill a region, copy image to image, image to buffer and back, map. */
  float red[4] = {1.0f, 0.0f, 0.0f, 1.0f};
  size_t fo[3] = {1, 1, 0}, fr[3] = {2, 2, 1};
  cl_mem tmp = clCreateImage(env.ctx, CL_MEM_READ_WRITE, &rgba_f, &d2, NULL, &err);
  CL_OK(err);
  CL_OK(clEnqueueCopyImage(env.q, out, tmp, o, o, r, 0, NULL, NULL));
  CL_OK(clEnqueueFillImage(env.q, tmp, red, fo, fr, 0, NULL, NULL));
  cl_mem buf = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, sizeof res, NULL, &err);
  CL_OK(err);
  CL_OK(clEnqueueCopyImageToBuffer(env.q, tmp, buf, o, r, 0, 0, NULL, NULL));
  float viab[H][W][4];
  CL_OK(clEnqueueReadBuffer(env.q, buf, CL_TRUE, 0, sizeof viab, viab, 0, NULL, NULL));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int filled = x >= 1 && x < 3 && y >= 1 && y < 3;
      for (int c = 0; c < 4; c++) {
        float want = filled ? red[c] : res[y][x][c];
        CHECK(viab[y][x][c] == want, "fill/copy (%d,%d).%d = %g, want %g", x, y, c, viab[y][x][c], want);
      }
    }
  size_t rp = 0;
  float *m = clEnqueueMapImage(env.q, tmp, CL_TRUE, CL_MAP_READ, fo, fr, &rp, NULL, 0, NULL, NULL, &err);
  CL_OK(err);
  CHECK(rp >= W * 16, "map row pitch %zu", rp);
  if (m) CHECK(m[0] == 1.0f && m[1] == 0.0f, "mapped texel %g %g", m[0], m[1]);
  CL_OK(clEnqueueUnmapMemObject(env.q, tmp, m, 0, NULL, NULL));

  /* A 3-D UNSIGNED_INT8 image from a buffer, summed slice by slice into a 2-D image. */
  cl_image_format rgba_u8 = {CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc d3;
  memset(&d3, 0, sizeof d3);
  d3.image_type = CL_MEM_OBJECT_IMAGE3D;
  d3.image_width = W;
  d3.image_height = H;
  d3.image_depth = 2;
  cl_mem vol = clCreateImage(env.ctx, CL_MEM_READ_ONLY, &rgba_u8, &d3, NULL, &err);
  CL_OK(err);
  unsigned char bytes[2][H][W][4];
  for (size_t i = 0; i < sizeof bytes; i++) ((unsigned char *)bytes)[i] = (unsigned char)(i * 3);
  cl_mem bsrc = clCreateBuffer(env.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof bytes, bytes, &err);
  CL_OK(err);
  size_t r3[3] = {W, H, 2};
  CL_OK(clEnqueueCopyBufferToImage(env.q, bsrc, vol, 0, o, r3, 0, NULL, NULL));
  d2.image_row_pitch = 0;
  cl_mem sum = clCreateImage(env.ctx, CL_MEM_WRITE_ONLY, &rgba_u8, &d2, NULL, &err);
  CL_OK(err);
  cl_mem sizes = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, 4 * sizeof(int), NULL, &err);
  CL_OK(err);
  cl_kernel to_int = kernel(p, "to_int");
  CL_OK(clSetKernelArg(to_int, 0, sizeof vol, &vol));
  CL_OK(clSetKernelArg(to_int, 1, sizeof sizes, &sizes));
  CL_OK(clSetKernelArg(to_int, 2, sizeof sum, &sum));
  CL_OK(clEnqueueNDRangeKernel(env.q, to_int, 2, NULL, g, NULL, 0, NULL, NULL));
  unsigned char got[H][W][4];
  CL_OK(clEnqueueReadImage(env.q, sum, CL_TRUE, o, r, 0, 0, got, 0, NULL, NULL));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      for (int c = 0; c < 4; c++) {
        unsigned want = bytes[0][y][x][c] + bytes[1][y][x][c];
        want = want > 255 ? 255 : want; /* write_imageui saturates */
        CHECK(got[y][x][c] == want, "sum (%d,%d).%d = %u, want %u", x, y, c, got[y][x][c], want);
      }
  int sz[4];
  CL_OK(clEnqueueReadBuffer(env.q, sizes, CL_TRUE, 0, sizeof sz, sz, 0, NULL, NULL));
  CHECK(sz[0] == W && sz[1] == H && sz[2] == 2 && sz[3] == 1, "dims %d %d %d, type %d", sz[0], sz[1], sz[2], sz[3]);

  CL_OK(clReleaseKernel(blur));
  CL_OK(clReleaseKernel(to_int));
  CL_OK(clReleaseProgram(p));
  CL_OK(clReleaseSampler(s));
  cl_mem all[] = {in, out, tmp, buf, vol, bsrc, sum, sizes};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) CL_OK(clReleaseMemObject(all[i]));
  teardown(&env);
  return finish("images");
}
