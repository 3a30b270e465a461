/* ShadowCL benchmark host: runs one app on the platform whose name starts with $BENCH_PLATFORM
 * (or on several, see main), repeats the kernel, and prints one JSON line per platform with the
 * median kernel time. Used by ci/bench. $BENCH_OPTIONS, when set, are the kernels' build options
 * (e.g. -cl-opt-disable, as debug builds of applications compile). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static const char *SRC =
    "__kernel void vadd(__global const float *a, __global const float *b, __global float *c) {\n"
    "  size_t i = get_global_id(0); c[i] = a[i] + b[i];\n"
    "}\n"
    "#define T 16\n"
    "__kernel void matmul(__global const float *a, __global const float *b, __global float *c, int n) {\n"
    "  __local float ta[T][T]; __local float tb[T][T];\n"
    "  int lx = get_local_id(0), ly = get_local_id(1);\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float acc = 0.0f;\n"
    "  for (int t = 0; t < n; t += T) {\n"
    "    ta[ly][lx] = a[y * n + t + lx]; tb[ly][lx] = b[(t + ly) * n + x];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (int k = 0; k < T; k++) acc += ta[ly][k] * tb[k][lx];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  c[y * n + x] = acc;\n"
    "}\n"
    "__kernel void reduce(__global const float *in, __global float *out, __local float *s) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  s[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t k = n / 2; k > 0; k >>= 1) {\n"
    "    if (l < k) s[l] += s[l + k];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) out[get_group_id(0)] = s[0];\n"
    "}\n"
    "__kernel void stencil(__global const float *in, __global float *out, int w, int h) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { out[y * w + x] = in[y * w + x]; return; }\n"
    "  out[y * w + x] = 0.2f * (in[y * w + x] + in[y * w + x - 1] + in[y * w + x + 1]\n"
    "                           + in[(y - 1) * w + x] + in[(y + 1) * w + x]);\n"
    "}\n"
    /* The two shapes lockstep runs slower than run-to-barrier (the auto schedule's case for
       handing a group to the per-item executor): a private array indexed at run time, and a
       loop whose trip count differs between neighbouring work-items. */
    "__kernel void priv_array(__global const float *in, __global float *out, int n) {\n"
    "  float p[16]; int i = get_global_id(0);\n"
    "  for (int j = 0; j < 16; j++) p[j] = in[(i + j) % n];\n"
    "  float s = 0.0f; for (int j = 0; j < 16; j++) s += p[(j * 7 + i) & 15];\n"
    "  out[i] = s;\n"
    "}\n"
    "__kernel void divergent(__global const float *in, __global float *out, int n) {\n"
    "  int i = get_global_id(0); float s = 0.0f;\n"
    "  for (int j = 0; j < (i & 31); j++) s += in[(i + j) % n];\n"
    "  out[i] = s;\n"
    "}\n";

/* The memory model's case (built at OpenCL C 3.0): the "last work-group done" reduction. Each
   group sums its part, item 0 stores it and counts the group in with an acq_rel fetch_add; the
   group that counts last sums every group's part, which the release sequence of the counter
   orders after their stores. */
static const char *SYNC_SRC =
    "__kernel void lastgroup(__global const float *in, __global float *partial,\n"
    "                        __global atomic_uint *count, __global float *out) {\n"
    "  __local float s[256]; __local int last;\n"
    "  size_t l = get_local_id(0), n = get_local_size(0), g = get_group_id(0);\n"
    "  uint ng = (uint)get_num_groups(0);\n"
    "  s[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t k = n / 2; k > 0; k >>= 1) {\n"
    "    if (l < k) s[l] += s[l + k];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) {\n"
    "    partial[g] = s[0];\n"
    "    last = atomic_fetch_add_explicit(count, 1, memory_order_acq_rel, memory_scope_device)\n"
    "           == ng - 1;\n"
    "  }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (last && l == 0) {\n"
    "    float t = 0.0f;\n"
    "    for (uint i = 0; i < ng; i++) t += partial[i];\n"
    "    out[0] = t;\n"
    "    atomic_store_explicit(count, 0, memory_order_relaxed, memory_scope_device);\n"
    "  }\n"
    "}\n";

#define CHECK(e)                                                                                   \
  do {                                                                                             \
    cl_int err_ = (e);                                                                             \
    if (err_ != CL_SUCCESS) {                                                                      \
      fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #e, err_);                          \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One app set up on one platform. */
struct bench {
  const char *platform;
  cl_command_queue q;
  cl_kernel k;
  cl_mem out;
  cl_uint dims;
  size_t gsz[2], lsz[2], out_elems;
  int launches; /* enqueues per repetition (the `launches` app: many small kernels) */
  double *t;
};

/* The first platform whose name starts with `want`. */
static cl_platform_id find_platform(const char *want) {
  cl_platform_id plats[16];
  cl_uint np = 0;
  CHECK(clGetPlatformIDs(16, plats, &np));
  char name[256];
  for (cl_uint i = 0; i < np && i < 16; i++) {
    CHECK(clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof name, name, NULL));
    if (!strncmp(name, want, strlen(want))) return plats[i];
  }
  fprintf(stderr, "no platform named '%s...'\n", want);
  exit(1);
}

static void setup(struct bench *b, const char *app, int scale, int reps) {
  cl_platform_id plat = find_platform(b->platform);
  cl_device_id dev;
  CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err); CHECK(err);
  b->q = clCreateCommandQueue(ctx, dev, 0, &err); CHECK(err);
  int sync = !strcmp(app, "lastgroup");
  cl_program prog = clCreateProgramWithSource(ctx, 1, sync ? &SYNC_SRC : &SRC, NULL, &err);
  CHECK(err);
  const char *options = sync ? "-cl-std=CL3.0"
                             : getenv("BENCH_OPTIONS") ? getenv("BENCH_OPTIONS") : "";
  if (clBuildProgram(prog, 1, &dev, options, NULL, NULL) != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "build failed:\n%s\n", log);
    exit(1);
  }
  /* `launches`: 10,000 launches of a small vadd per repetition (report cost per launch).
     `vadd:N`: one vadd of 2^N elements, not divided by the scale (growth with the work). */
  int many = !strcmp(app, "launches");
  int sized = !strncmp(app, "vadd:", 5);
  cl_kernel k = clCreateKernel(prog, many || sized ? "vadd" : app, &err); CHECK(err);
  size_t n = 0;
  b->dims = 1;
  b->launches = 1;
  int mat = 256 / scale < 16 ? 16 : 256 / scale, w = 512 / scale, h = 512 / scale;
  if (many) {
    n = 256;
    b->gsz[0] = n; b->lsz[0] = 64;
    b->launches = 10000 / scale;
  } else if (sized) {
    int bits = atoi(app + 5);
    if (bits < 8 || bits > 28) { fprintf(stderr, "vadd:N needs 8 <= N <= 28\n"); exit(2); }
    n = (size_t)1 << bits;
    b->gsz[0] = n; b->lsz[0] = 256;
  } else if (!strcmp(app, "priv_array") || !strcmp(app, "divergent")) {
    n = (1u << 18) / scale;
    b->gsz[0] = n; b->lsz[0] = 256;
  } else if (!strcmp(app, "vadd") || !strcmp(app, "reduce") || sync) {
    n = (1u << 20) / scale;
    b->gsz[0] = n; b->lsz[0] = 256;
  } else if (!strcmp(app, "matmul")) {
    n = (size_t)mat * mat; b->dims = 2; b->gsz[0] = b->gsz[1] = mat; b->lsz[0] = b->lsz[1] = 16;
  } else if (!strcmp(app, "stencil")) {
    n = (size_t)w * h; b->dims = 2; b->gsz[0] = w; b->gsz[1] = h; b->lsz[0] = 16; b->lsz[1] = 16;
  } else { fprintf(stderr, "unknown app %s\n", app); exit(2); }
  float *a = malloc(n * sizeof(float)), *bv = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; i++) { a[i] = (float)(i % 97) * 0.5f; bv[i] = (float)(i % 13); }
  cl_mem ba = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, a, &err); CHECK(err);
  /* lastgroup writes its groups' parts into the second buffer. */
  cl_mem bb = clCreateBuffer(ctx, (sync ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY) | CL_MEM_COPY_HOST_PTR,
                             n * 4, bv, &err); CHECK(err);
  cl_mem bc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4, NULL, &err); CHECK(err);
  free(a);
  free(bv);
  if (!strcmp(app, "vadd") || many || sized) {
    CHECK(clSetKernelArg(k, 0, sizeof ba, &ba)); CHECK(clSetKernelArg(k, 1, sizeof bb, &bb));
    CHECK(clSetKernelArg(k, 2, sizeof bc, &bc)); b->out_elems = n;
  } else if (!strcmp(app, "matmul")) {
    CHECK(clSetKernelArg(k, 0, sizeof ba, &ba)); CHECK(clSetKernelArg(k, 1, sizeof bb, &bb));
    CHECK(clSetKernelArg(k, 2, sizeof bc, &bc)); CHECK(clSetKernelArg(k, 3, sizeof mat, &mat));
    b->out_elems = n;
  } else if (!strcmp(app, "priv_array") || !strcmp(app, "divergent")) {
    int count = (int)n;
    CHECK(clSetKernelArg(k, 0, sizeof ba, &ba)); CHECK(clSetKernelArg(k, 1, sizeof bc, &bc));
    CHECK(clSetKernelArg(k, 2, sizeof count, &count)); b->out_elems = n;
  } else if (!strcmp(app, "reduce")) {
    CHECK(clSetKernelArg(k, 0, sizeof ba, &ba)); CHECK(clSetKernelArg(k, 1, sizeof bc, &bc));
    CHECK(clSetKernelArg(k, 2, 256 * sizeof(float), NULL)); b->out_elems = n / 256;
  } else if (sync) {
    cl_uint zero = 0;
    cl_mem count = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero,
                                  &zero, &err); CHECK(err);
    CHECK(clSetKernelArg(k, 0, sizeof ba, &ba)); CHECK(clSetKernelArg(k, 1, sizeof bb, &bb));
    CHECK(clSetKernelArg(k, 2, sizeof count, &count)); CHECK(clSetKernelArg(k, 3, sizeof bc, &bc));
    b->out_elems = 1;
  } else {
    CHECK(clSetKernelArg(k, 0, sizeof ba, &ba)); CHECK(clSetKernelArg(k, 1, sizeof bc, &bc));
    CHECK(clSetKernelArg(k, 2, sizeof w, &w)); CHECK(clSetKernelArg(k, 3, sizeof h, &h));
    b->out_elems = n;
  }
  b->k = k;
  b->out = bc;
  b->t = malloc(sizeof(double) * (reps > 0 ? reps : 1));
}

static double run_once(struct bench *b) {
  double t0 = now_ms();
  for (int i = 0; i < b->launches; i++)
    CHECK(clEnqueueNDRangeKernel(b->q, b->k, b->dims, NULL, b->gsz, b->lsz, 0, NULL, NULL));
  CHECK(clFinish(b->q));
  return now_ms() - t0;
}

/* BENCH_PLATFORM may name several platforms separated by '|': each is set up in this process
 * and the repetitions alternate between them, so that they share the process's thread
 * placement and the machine's moment (a paired comparison). One JSON line per platform. */
int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: bench APP REPS [SCALE]  (APP: vadd matmul reduce stencil priv_array divergent launches vadd:N lastgroup)\n");
    return 2;
  }
  const char *app = argv[1];
  int reps = atoi(argv[2]);
  int scale = argc > 3 ? atoi(argv[3]) : 1; /* divides problem sizes, for slow platforms */
  char *want = strdup(getenv("BENCH_PLATFORM") ? getenv("BENCH_PLATFORM") : "");
  struct bench runs[4];
  int nruns = 0;
  for (char *save = NULL, *tok = strtok_r(want, "|", &save); tok && nruns < 4;
       tok = strtok_r(NULL, "|", &save))
    runs[nruns++].platform = tok;
  if (nruns == 0) runs[nruns++].platform = "";
  for (int i = 0; i < nruns; i++) setup(&runs[i], app, scale, reps);
  for (int r = 0; r < reps; r++)
    for (int i = 0; i < nruns; i++) runs[i].t[r] = run_once(&runs[i]);
  /* Peak RSS of this process only: a platform that compiles in child processes (ShadowCL runs
   * clang-15) must not be charged for them, nor one that compiles in-process be spared. */
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  for (int i = 0; i < nruns; i++) {
    struct bench *b = &runs[i];
    float *c = malloc(b->out_elems * sizeof(float));
    CHECK(clEnqueueReadBuffer(b->q, b->out, CL_TRUE, 0, b->out_elems * 4, c, 0, NULL, NULL));
    double sum = 0;
    for (size_t j = 0; j < b->out_elems; j++) sum += c[j];
    free(c);
    qsort(b->t, reps, sizeof(double), cmp);
    /* The minimum beside the median: on a machine shared with others, noise only adds. */
    printf("{\"app\":\"%s\",\"platform\":\"%s\",\"median_ms\":%.4f,\"min_ms\":%.4f,"
           "\"reps\":%d,\"scale\":%d,\"checksum\":%.6g,\"rss_kb\":%ld}\n",
           app, b->platform, reps ? b->t[reps / 2] : 0.0, reps ? b->t[0] : 0.0, reps, scale, sum,
           ru.ru_maxrss);
  }
  return 0;
}
