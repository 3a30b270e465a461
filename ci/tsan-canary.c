/* ci/tsan's canary: a real data race inside libshadowcl.so (the queue's thread writes the
 * host array of a non-blocking read while the main thread writes it too). ThreadSanitizer
 * must report it, or the sanitizer does not see into the library and a clean stress run
 * proves nothing. */
#include "common.h"
#include <pthread.h>
static cl_event ue;
static void *complete(void *arg) { (void)arg; CL_OK(clSetUserEventStatus(ue, CL_COMPLETE)); return NULL; }
int main(void) {
  env_t env = setup(0);
  static int a[1 << 16];
  cl_int err;
  cl_mem m = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, sizeof a, NULL, &err);
  CL_OK(err);
  ue = clCreateUserEvent(env.ctx, &err);
  CL_OK(err);
  CL_OK(clEnqueueReadBuffer(env.q, m, CL_FALSE, 0, sizeof a, a, 1, &ue, NULL));
  pthread_t th;
  pthread_create(&th, NULL, complete, NULL);
  /* No wait for the read: the race. */
  for (int r = 0; r < 20; r++) for (int i = 0; i < (1 << 16); i++) a[i] = i + r;
  pthread_join(th, NULL);
  CL_OK(clFinish(env.q));
  CL_OK(clReleaseMemObject(m));
  CL_OK(clReleaseEvent(ue));
  teardown(&env);
  return 0;
}
