/* ci/tsan's canary: a real data race inside libshadowcl.so. The queue's thread copies a
 * buffer into the host array of a non-blocking read, while the main thread, which never
 * waits for the read, polls that array with plain loads until the copy shows. ThreadSanitizer
 * must report it, or the sanitizer does not see into the library and a clean stress run
 * proves nothing. The main thread makes no OpenCL call until the copy has landed: any call
 * (a lock the queue's thread also takes) could order the two sides and hide the race. */
#include "common.h"
#include <pthread.h>
#define N (1 << 16)
static cl_event ue;
static void *complete(void *arg) { (void)arg; CL_OK(clSetUserEventStatus(ue, CL_COMPLETE)); return NULL; }
int main(void) {
  env_t env = setup(0);
  static int a[N], pattern[N];
  for (int i = 0; i < N; i++) pattern[i] = i + 1;
  cl_int err;
  cl_mem m = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof a, pattern, &err);
  CL_OK(err);
  ue = clCreateUserEvent(env.ctx, &err);
  CL_OK(err);
  CL_OK(clEnqueueReadBuffer(env.q, m, CL_FALSE, 0, sizeof a, a, 1, &ue, NULL));
  CL_OK(clFlush(env.q));
  pthread_t th;
  pthread_create(&th, NULL, complete, NULL);
  /* No wait for the read: the race. */
  while (((volatile int *)a)[N - 1] != N) {
  }
  pthread_join(th, NULL);
  CL_OK(clFinish(env.q));
  CL_OK(clReleaseMemObject(m));
  CL_OK(clReleaseEvent(ue));
  teardown(&env);
  return 0;
}
