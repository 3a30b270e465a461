/* Threads: the OpenCL API is thread-safe (any entry point from any thread at any time).
 * Several threads at once create and release buffers (with and without COPY_HOST_PTR),
 * sub-buffers, user events and kernels from one shared program; set arguments on their own
 * kernels; enqueue write / NDRange / read on one shared in-order queue and on their own
 * queues, with wait lists holding events made by other threads; retain and release the
 * shared objects; and query shared objects while the others release their own. Each
 * thread's output is checked exactly, and the shared objects' reference counts must be back
 * to their first values at the end. Some objects are released while commands using them
 * are still in flight. Event callbacks release objects from the platform's threads (an
 * event releasing itself, a sub-buffer still read by the thread that made it), and on
 * ShadowCL a parent buffer is released twice while its sub-buffer keeps it alive: the
 * second release must be refused with CL_INVALID_MEM_OBJECT (a double release is undefined
 * behaviour in OpenCL; catching it is ShadowCL's job, so other platforms skip it).
 *
 * Usage: threads [iterations [threads]] (defaults: 200 iterations, 6 threads). */
#include "common.h"
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#define N 256
#define MAX_THREADS 8

static atomic_int tfailures;

/* CHECK for threads: the counter in common.h is not atomic. */
#define TCHECK(cond, ...)                                                  \
  do {                                                                     \
    if (!(cond)) {                                                         \
      flockfile(stderr);                                                   \
      fprintf(stderr, "FAIL %s:%d: (%s) ", __FILE__, __LINE__, #cond);     \
      fprintf(stderr, __VA_ARGS__);                                        \
      fputc('\n', stderr);                                                 \
      funlockfile(stderr);                                                 \
      atomic_fetch_add(&tfailures, 1);                                     \
    }                                                                      \
  } while (0)

static env_t env;
static cl_program prog;
static cl_kernel shared_k;  /* queried by every thread, never modified */
static cl_mem shared_buf;   /* queried, retained, and split into sub-buffers */
static size_t align_bytes;  /* CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes */
static int iterations = 200, nthreads = 6;
static int double_release; /* the platform is ShadowCL */
static atomic_int callbacks_set, callbacks_run;
static pthread_barrier_t start_line;

/* One published event per thread (holding a reference), taken by the next thread. */
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static cl_event slot[MAX_THREADS];

static void publish(int t, cl_event e) {
  CL_OK(clRetainEvent(e));
  pthread_mutex_lock(&slot_lock);
  cl_event old = slot[t];
  slot[t] = e;
  pthread_mutex_unlock(&slot_lock);
  if (old) CL_OK(clReleaseEvent(old));
}

/* The neighbour's latest event, retained for the caller, or NULL. */
static cl_event take(int t) {
  pthread_mutex_lock(&slot_lock);
  cl_event e = slot[t];
  if (e) CL_OK(clRetainEvent(e));
  pthread_mutex_unlock(&slot_lock);
  return e;
}

static cl_uint refcount_mem(cl_mem m) {
  cl_uint r = 0;
  CL_OK(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof r, &r, NULL));
  return r;
}
static cl_uint refcount_kernel(cl_kernel k) {
  cl_uint r = 0;
  CL_OK(clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof r, &r, NULL));
  return r;
}
static cl_uint refcount_program(cl_program p) {
  cl_uint r = 0;
  CL_OK(clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT, sizeof r, &r, NULL));
  return r;
}
static cl_uint refcount_queue(cl_command_queue q) {
  cl_uint r = 0;
  CL_OK(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof r, &r, NULL));
  return r;
}
static cl_uint refcount_context(cl_context c) {
  cl_uint r = 0;
  CL_OK(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof r, &r, NULL));
  return r;
}

/* Callbacks run on the platform's threads, racing with the thread that set them. */
static void CL_CALLBACK release_event_cb(cl_event e, cl_int status, void *data) {
  (void)data;
  TCHECK(status == CL_COMPLETE, "event callback status %d", status);
  TCHECK(clReleaseEvent(e) == CL_SUCCESS, "event callback's release of its own event");
  atomic_fetch_add(&callbacks_run, 1);
}
static void CL_CALLBACK release_mem_cb(cl_event e, cl_int status, void *data) {
  (void)e;
  TCHECK(status == CL_COMPLETE, "mem callback status %d", status);
  TCHECK(clReleaseMemObject((cl_mem)data) == CL_SUCCESS, "callback's release of a sub-buffer");
  atomic_fetch_add(&callbacks_run, 1);
}

static cl_mem make_buffer(cl_mem_flags flags, size_t size, void *host) {
  cl_int err;
  cl_mem m = clCreateBuffer(env.ctx, flags, size, host, &err);
  CL_OK(err);
  return m;
}

static cl_mem make_sub(cl_mem parent, cl_mem_flags flags, size_t origin, size_t size) {
  cl_int err;
  cl_buffer_region r = {origin, size};
  cl_mem m = clCreateSubBuffer(parent, flags, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
  CL_OK(err);
  return m;
}

/* Queries on the shared objects, which other threads are retaining and releasing. */
static void query_shared(int t) {
  size_t size = 0;
  cl_context c = NULL;
  CL_OK(clGetMemObjectInfo(shared_buf, CL_MEM_SIZE, sizeof size, &size, NULL));
  TCHECK(size == 8 * align_bytes, "thread %d: shared buffer size %zu", t, size);
  CL_OK(clGetMemObjectInfo(shared_buf, CL_MEM_CONTEXT, sizeof c, &c, NULL));
  TCHECK(c == env.ctx, "thread %d: shared buffer context", t);
  TCHECK(refcount_mem(shared_buf) >= 1, "thread %d: shared buffer reference count 0", t);

  char name[32] = "";
  cl_uint nargs = 0;
  cl_program p = NULL;
  CL_OK(clGetKernelInfo(shared_k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL));
  TCHECK(strcmp(name, "vadd") == 0, "thread %d: shared kernel name '%s'", t, name);
  CL_OK(clGetKernelInfo(shared_k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL));
  TCHECK(nargs == 3, "thread %d: shared kernel has %u args", t, nargs);
  CL_OK(clGetKernelInfo(shared_k, CL_KERNEL_PROGRAM, sizeof p, &p, NULL));
  TCHECK(p == prog, "thread %d: shared kernel's program", t);
  size_t nks = 0;
  CL_OK(clGetProgramInfo(prog, CL_PROGRAM_NUM_KERNELS, sizeof nks, &nks, NULL));
  TCHECK(nks == 2, "thread %d: program has %zu kernels", t, nks);
}

/* Retain and release every shared object, checking the count went up while held. */
static void retain_release_shared(int t) {
  CL_OK(clRetainMemObject(shared_buf));
  CL_OK(clRetainKernel(shared_k));
  CL_OK(clRetainProgram(prog));
  CL_OK(clRetainCommandQueue(env.q));
  CL_OK(clRetainContext(env.ctx));
  TCHECK(refcount_mem(shared_buf) >= 2, "thread %d: held shared buffer count %u", t, refcount_mem(shared_buf));
  TCHECK(refcount_kernel(shared_k) >= 2, "thread %d: held shared kernel count %u", t, refcount_kernel(shared_k));
  TCHECK(refcount_program(prog) >= 2, "thread %d: held program count %u", t, refcount_program(prog));
  TCHECK(refcount_queue(env.q) >= 2, "thread %d: held queue count %u", t, refcount_queue(env.q));
  TCHECK(refcount_context(env.ctx) >= 2, "thread %d: held context count %u", t, refcount_context(env.ctx));
  CL_OK(clReleaseContext(env.ctx));
  CL_OK(clReleaseCommandQueue(env.q));
  CL_OK(clReleaseProgram(prog));
  CL_OK(clReleaseKernel(shared_k));
  CL_OK(clReleaseMemObject(shared_buf));
}

static void *worker(void *arg) {
  int t = (int)(intptr_t)arg;
  int next = (t + 1) % nthreads;
  cl_int err;
  cl_command_queue myq = clCreateCommandQueue(env.ctx, env.dev, 0, &err);
  CL_OK(err);
  int a[N], b[N], out[N];
  size_t g = N, l = 64;
  pthread_barrier_wait(&start_line);

  for (int it = 0; it < iterations; it++) {
    for (int j = 0; j < N; j++) {
      a[j] = t * 1000000 + it * 1000 + j;
      b[j] = 7 * j - it;
      out[j] = -1;
    }
    int d = t + 1;

    /* a: with COPY_HOST_PTR on odd iterations, else written by a blocking write. */
    cl_mem ba;
    if (it & 1) {
      ba = make_buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a);
    } else {
      ba = make_buffer(CL_MEM_READ_ONLY, sizeof a, NULL);
      CL_OK(clEnqueueWriteBuffer(myq, ba, CL_TRUE, 0, sizeof a, a, 0, NULL, NULL));
    }
    cl_mem bb = make_buffer(CL_MEM_READ_ONLY, sizeof b, NULL);
    /* c: the result lives in a sub-buffer at an aligned offset. */
    cl_mem bc = make_buffer(CL_MEM_READ_WRITE, align_bytes + sizeof out, NULL);
    cl_mem sub = make_sub(bc, CL_MEM_READ_WRITE, align_bytes, sizeof out);
    /* A throwaway sub-buffer of the shared buffer. */
    cl_mem ssub = make_sub(shared_buf, CL_MEM_READ_ONLY, (size_t)(t % 8) * align_bytes, align_bytes);

    /* b is written on the shared queue, held back by a user event. */
    cl_event ue = clCreateUserEvent(env.ctx, &err);
    CL_OK(err);
    cl_event e_wb, e_vadd, e_inc;
    CL_OK(clEnqueueWriteBuffer(env.q, bb, CL_FALSE, 0, sizeof b, b, 1, &ue, &e_wb));
    CL_OK(clSetUserEventStatus(ue, CL_COMPLETE));
    CL_OK(clFlush(env.q));

    /* vadd on this thread's queue, after the write on the shared one. */
    cl_kernel k = clCreateKernel(prog, (it & 2) ? "vadd" : "inc", &err);
    CL_OK(err);
    cl_kernel kv, ki;
    if (it & 2) {
      kv = k;
      ki = clCreateKernel(prog, "inc", &err);
      CL_OK(err);
    } else {
      ki = k;
      kv = clCreateKernel(prog, "vadd", &err);
      CL_OK(err);
    }
    CL_OK(clSetKernelArg(kv, 0, sizeof ba, &ba));
    CL_OK(clSetKernelArg(kv, 1, sizeof bb, &bb));
    CL_OK(clSetKernelArg(kv, 2, sizeof sub, &sub));
    CL_OK(clEnqueueNDRangeKernel(myq, kv, 1, NULL, &g, &l, 1, &e_wb, &e_vadd));
    CL_OK(clFlush(myq));

    /* inc on the shared queue, after vadd and after the neighbour's latest vadd. */
    cl_event theirs = take(next);
    cl_event waits[2] = {e_vadd, theirs};
    CL_OK(clSetKernelArg(ki, 0, sizeof sub, &sub));
    CL_OK(clSetKernelArg(ki, 1, sizeof d, &d));
    CL_OK(clEnqueueNDRangeKernel(env.q, ki, 1, NULL, &g, NULL, theirs ? 2 : 1, waits, &e_inc));
    /* Each callback owns the reference it releases. */
    CL_OK(clRetainEvent(e_vadd));
    CL_OK(clSetEventCallback(e_vadd, CL_COMPLETE, release_event_cb, NULL));
    CL_OK(clRetainMemObject(sub));
    CL_OK(clSetEventCallback(e_inc, CL_COMPLETE, release_mem_cb, sub));
    atomic_fetch_add(&callbacks_set, 2);
    CL_OK(clFlush(env.q));

    /* Every third iteration, release the inputs and the vadd kernel while their commands
     * may still be in flight: the platform must keep them alive until those finish. */
    int early = it % 3 == 0;
    if (early) {
      CL_OK(clReleaseKernel(kv));
      CL_OK(clReleaseMemObject(bb));
      CL_OK(clReleaseMemObject(ba));
    }

    /* Queries while everything is in flight. */
    query_shared(t);
    retain_release_shared(t);
    if (theirs) {
      cl_command_type ct = 0;
      cl_command_queue eq = NULL;
      CL_OK(clGetEventInfo(theirs, CL_EVENT_COMMAND_TYPE, sizeof ct, &ct, NULL));
      TCHECK(ct == CL_COMMAND_NDRANGE_KERNEL, "thread %d: neighbour's event type %#x", t, ct);
      CL_OK(clGetEventInfo(theirs, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, NULL));
      TCHECK(eq != NULL && eq != env.q && eq != myq, "thread %d: neighbour's event queue", t);
    }
    cl_mem assoc = NULL;
    size_t off = 1;
    CL_OK(clGetMemObjectInfo(ssub, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc, NULL));
    TCHECK(assoc == shared_buf, "thread %d: sub-buffer's parent", t);
    CL_OK(clGetMemObjectInfo(ssub, CL_MEM_OFFSET, sizeof off, &off, NULL));
    TCHECK(off == (size_t)(t % 8) * align_bytes, "thread %d: sub-buffer offset %zu", t, off);
    CL_OK(clReleaseMemObject(ssub));

    /* Read back on this thread's queue, after inc on the shared one. */
    CL_OK(clEnqueueReadBuffer(myq, sub, CL_TRUE, 0, sizeof out, out, 1, &e_inc, NULL));
    int bad = 0;
    for (int j = 0; j < N; j++) {
      int want = a[j] + b[j] + d;
      if (out[j] != want && bad++ < 3)
        TCHECK(out[j] == want, "thread %d iteration %d: out[%d] = %d, expected %d", t, it, j, out[j], want);
    }
    cl_int st = 0;
    CL_OK(clGetEventInfo(e_inc, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL));
    TCHECK(st == CL_COMPLETE, "thread %d: inc status %d after the read", t, st);
    cl_uint rc = 0;
    CL_OK(clGetEventInfo(ue, CL_EVENT_REFERENCE_COUNT, sizeof rc, &rc, NULL));
    TCHECK(rc >= 1, "thread %d: user event reference count %u", t, rc);

    publish(t, e_vadd);
    if (theirs) CL_OK(clReleaseEvent(theirs));
    CL_OK(clReleaseEvent(ue));
    CL_OK(clReleaseEvent(e_wb));
    CL_OK(clReleaseEvent(e_vadd));
    CL_OK(clReleaseEvent(e_inc));
    CL_OK(clReleaseKernel(ki));
    CL_OK(clReleaseMemObject(bc));
    if (double_release) {
      cl_int again = clReleaseMemObject(bc);
      TCHECK(again == CL_INVALID_MEM_OBJECT, "thread %d: second release of a parent buffer: %d", t, again);
    }
    CL_OK(clReleaseMemObject(sub));
    if (!early) {
      CL_OK(clReleaseKernel(kv));
      CL_OK(clReleaseMemObject(bb));
      CL_OK(clReleaseMemObject(ba));
    }
  }
  CL_OK(clFinish(myq));
  CL_OK(clReleaseCommandQueue(myq));
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) iterations = atoi(argv[1]);
  if (argc > 2) nthreads = atoi(argv[2]);
  if (iterations < 1 || nthreads < 2 || nthreads > MAX_THREADS) {
    fprintf(stderr, "usage: threads [iterations>=1 [threads 2..%d]]\n", MAX_THREADS);
    return 2;
  }
  env = setup(0);
  char plat_name[64] = "";
  CL_OK(clGetPlatformInfo(env.plat, CL_PLATFORM_NAME, sizeof plat_name, plat_name, NULL));
  double_release = strcmp(plat_name, "ShadowCL") == 0;
  cl_uint align_bits = 0;
  CL_OK(clGetDeviceInfo(env.dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL));
  align_bytes = align_bits / 8;
  if (align_bytes < sizeof(int)) align_bytes = sizeof(int);
  const char *src =
      "__kernel void vadd(__global const int *a, __global const int *b, __global int *c) {\n"
      "  size_t i = get_global_id(0); c[i] = a[i] + b[i]; }\n"
      "__kernel void inc(__global int *c, int d) { size_t i = get_global_id(0); c[i] += d; }\n";
  prog = build(&env, src, "");
  shared_k = kernel(prog, "vadd");
  shared_buf = make_buffer(CL_MEM_READ_WRITE, 8 * align_bytes, NULL);
  /* Reference counts may include the platform's own references (a context held by its
   * queue, program and buffers): what matters is that they come back. */
  cl_uint rc0[5] = {refcount_mem(shared_buf), refcount_kernel(shared_k), refcount_program(prog),
                    refcount_queue(env.q), refcount_context(env.ctx)};

  pthread_t th[MAX_THREADS];
  pthread_barrier_init(&start_line, NULL, (unsigned)nthreads);
  for (int t = 0; t < nthreads; t++)
    if (pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) != 0) {
      fprintf(stderr, "FAIL: pthread_create\n");
      return 1;
    }
  for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
  pthread_barrier_destroy(&start_line);
  CL_OK(clFinish(env.q));
  /* Callbacks may still be running after their events completed. */
  for (int tries = 0; tries < 10000 && atomic_load(&callbacks_run) < atomic_load(&callbacks_set); tries++)
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  TCHECK(atomic_load(&callbacks_run) == atomic_load(&callbacks_set), "%d of %d event callbacks ran",
         atomic_load(&callbacks_run), atomic_load(&callbacks_set));
  for (int t = 0; t < nthreads; t++)
    if (slot[t]) {
      cl_int st = 0;
      CL_OK(clGetEventInfo(slot[t], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL));
      TCHECK(st == CL_COMPLETE, "thread %d's last event status %d", t, st);
      CL_OK(clReleaseEvent(slot[t]));
    }

  /* Reference counts are "immediately stale" (OpenCL spec): a platform may drop internal
     references of completed commands a little later (PoCL does), so allow it 2 s to settle. */
  cl_uint rc1[5];
  for (int tries = 0; tries < 2000; tries++) {
    cl_uint now[5] = {refcount_mem(shared_buf), refcount_kernel(shared_k), refcount_program(prog),
                      refcount_queue(env.q), refcount_context(env.ctx)};
    memcpy(rc1, now, sizeof rc1);
    if (memcmp(rc1, rc0, sizeof rc1) == 0) break;
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  const char *what[5] = {"shared buffer", "shared kernel", "program", "shared queue", "context"};
  for (int i = 0; i < 5; i++)
    TCHECK(rc1[i] == rc0[i], "%s reference count %u at the end, %u at the start", what[i], rc1[i], rc0[i]);
  CHECK(refcount_mem(shared_buf) == 1, "shared buffer reference count %u", refcount_mem(shared_buf));
  CHECK(refcount_kernel(shared_k) == 1, "shared kernel reference count %u", refcount_kernel(shared_k));

  CL_OK(clReleaseMemObject(shared_buf));
  CL_OK(clReleaseKernel(shared_k));
  CL_OK(clReleaseProgram(prog));
  teardown(&env);
  failures += atomic_load(&tfailures);
  printf("threads: %d threads x %d iterations\n", nthreads, iterations);
  return finish("threads");
}
