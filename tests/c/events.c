/* Events: an out-of-order, profiling queue with a dependency chain, user events gating a
 * command, callbacks, profiling timestamps, event queries, markers and barriers, and a
 * dependency across two queues. */
#include "common.h"
#include <time.h>

#define N 512

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static volatile int callback_status = 1;
static void CL_CALLBACK on_complete(cl_event e, cl_int status, void *user) {
  (void)e;
  *(volatile int *)user = 1;
  callback_status = status;
}

static cl_int status_of(cl_event e) {
  cl_int s = 12345;
  CL_OK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL));
  return s;
}

int main(void) {
  env_t env = setup(0);
  cl_int err;
  cl_command_queue_properties supported = 0;
  CL_OK(clGetDeviceInfo(env.dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof supported, &supported, NULL));
  CHECK(supported & CL_QUEUE_PROFILING_ENABLE, "device lacks CL_QUEUE_PROFILING_ENABLE");
  cl_command_queue_properties props = CL_QUEUE_PROFILING_ENABLE;
  if (supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) props |= CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
  else CHECK(0, "device lacks out-of-order queues");
  cl_command_queue q = clCreateCommandQueue(env.ctx, env.dev, props, &err);
  CL_OK(err);
  cl_command_queue_properties got = 0;
  CL_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof got, &got, NULL));
  CHECK(got == props, "CL_QUEUE_PROPERTIES %#llx, expected %#llx", (unsigned long long)got, (unsigned long long)props);

  const char *src =
      "__kernel void add(__global const int *a, __global const int *b, __global int *c) {\n"
      "  size_t i = get_global_id(0); c[i] = a[i] + b[i]; }\n"
      "__kernel void scale(__global int *c, int s) { size_t i = get_global_id(0); c[i] *= s; }\n";
  cl_program p = build(&env, src, "");
  cl_kernel kadd = kernel(p, "add"), kscale = kernel(p, "scale");
  int a[N], b[N], c[N];
  for (int i = 0; i < N; i++) {
    a[i] = i;
    b[i] = 1000 - i;
    c[i] = -1;
  }
  cl_mem ba = clCreateBuffer(env.ctx, CL_MEM_READ_ONLY, sizeof a, NULL, &err);
  CL_OK(err);
  cl_mem bb = clCreateBuffer(env.ctx, CL_MEM_READ_ONLY, sizeof b, NULL, &err);
  CL_OK(err);
  cl_mem bc = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, sizeof c, NULL, &err);
  CL_OK(err);

  /* write a, write b -> add -> scale -> read, all non-blocking, ordered only by events. */
  cl_event e_wa, e_wb, e_add, e_scale, e_read;
  CL_OK(clEnqueueWriteBuffer(q, ba, CL_FALSE, 0, sizeof a, a, 0, NULL, &e_wa));
  CL_OK(clEnqueueWriteBuffer(q, bb, CL_FALSE, 0, sizeof b, b, 0, NULL, &e_wb));
  CL_OK(clSetKernelArg(kadd, 0, sizeof ba, &ba));
  CL_OK(clSetKernelArg(kadd, 1, sizeof bb, &bb));
  CL_OK(clSetKernelArg(kadd, 2, sizeof bc, &bc));
  size_t g = N, l = 64;
  cl_event w1[2] = {e_wa, e_wb};
  CL_OK(clEnqueueNDRangeKernel(q, kadd, 1, NULL, &g, &l, 2, w1, &e_add));
  int s = 3;
  CL_OK(clSetKernelArg(kscale, 0, sizeof bc, &bc));
  CL_OK(clSetKernelArg(kscale, 1, sizeof s, &s));
  CL_OK(clEnqueueNDRangeKernel(q, kscale, 1, NULL, &g, NULL, 1, &e_add, &e_scale));
  CL_OK(clEnqueueReadBuffer(q, bc, CL_FALSE, 0, sizeof c, c, 1, &e_scale, &e_read));
  volatile int called = 0;
  CL_OK(clSetEventCallback(e_read, CL_COMPLETE, on_complete, (void *)&called));
  CL_OK(clWaitForEvents(1, &e_read));
  for (int i = 0; i < N; i++) CHECK(c[i] == 3000, "chain result c[%d] = %d, expected 3000", i, c[i]);
  CHECK(status_of(e_add) == CL_COMPLETE, "add event status %d", status_of(e_add));
  for (int i = 0; i < 200 && !called; i++) sleep_ms(10);
  CHECK(called, "CL_COMPLETE callback was not called");
  CHECK(callback_status == CL_COMPLETE, "callback status %d", callback_status);

  /* Event queries. */
  cl_command_type ct = 0;
  cl_command_queue eq = NULL;
  cl_context ec = NULL;
  CL_OK(clGetEventInfo(e_add, CL_EVENT_COMMAND_TYPE, sizeof ct, &ct, NULL));
  CHECK(ct == CL_COMMAND_NDRANGE_KERNEL, "add command type %#x", ct);
  CL_OK(clGetEventInfo(e_wa, CL_EVENT_COMMAND_TYPE, sizeof ct, &ct, NULL));
  CHECK(ct == CL_COMMAND_WRITE_BUFFER, "write command type %#x", ct);
  CL_OK(clGetEventInfo(e_read, CL_EVENT_COMMAND_TYPE, sizeof ct, &ct, NULL));
  CHECK(ct == CL_COMMAND_READ_BUFFER, "read command type %#x", ct);
  CL_OK(clGetEventInfo(e_add, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, NULL));
  CHECK(eq == q, "CL_EVENT_COMMAND_QUEUE");
  CL_OK(clGetEventInfo(e_add, CL_EVENT_CONTEXT, sizeof ec, &ec, NULL));
  CHECK(ec == env.ctx, "CL_EVENT_CONTEXT");

  /* Profiling: queued <= submit <= start <= end, and the kernel after its inputs. */
  cl_ulong t[4] = {0}, wa_end = 0;
  cl_profiling_info which[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
  for (int i = 0; i < 4; i++) CL_OK(clGetEventProfilingInfo(e_add, which[i], sizeof t[i], &t[i], NULL));
  CHECK(t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3] && t[3] > 0, "profiling order %llu %llu %llu %llu",
        (unsigned long long)t[0], (unsigned long long)t[1], (unsigned long long)t[2], (unsigned long long)t[3]);
  CL_OK(clGetEventProfilingInfo(e_wa, CL_PROFILING_COMMAND_END, sizeof wa_end, &wa_end, NULL));
  CHECK(wa_end <= t[2], "kernel started (%llu) before its input write ended (%llu)", (unsigned long long)t[2],
        (unsigned long long)wa_end);

  /* A user event holds back a write until the host releases it. */
  cl_event ue = clCreateUserEvent(env.ctx, &err);
  CL_OK(err);
  CHECK(status_of(ue) == CL_SUBMITTED, "new user event status %d", status_of(ue));
  CL_OK(clGetEventInfo(ue, CL_EVENT_COMMAND_TYPE, sizeof ct, &ct, NULL));
  CHECK(ct == CL_COMMAND_USER, "user event command type %#x", ct);
  int fresh[N];
  for (int i = 0; i < N; i++) fresh[i] = 7;
  cl_event e_gated, e_marker;
  CL_OK(clEnqueueWriteBuffer(q, bc, CL_FALSE, 0, sizeof fresh, fresh, 1, &ue, &e_gated));
  CL_OK(clEnqueueMarkerWithWaitList(q, 1, &e_gated, &e_marker));
  CL_OK(clFlush(q));
  sleep_ms(50);
  CHECK(status_of(e_gated) > CL_COMPLETE, "gated write ran before its user event (status %d)", status_of(e_gated));
  CHECK(status_of(e_marker) > CL_COMPLETE, "marker completed before the gated write (status %d)", status_of(e_marker));
  CL_OK(clSetUserEventStatus(ue, CL_COMPLETE));
  CL_OK(clWaitForEvents(1, &e_marker));
  CHECK(status_of(e_gated) == CL_COMPLETE, "gated write status %d", status_of(e_gated));
  CHECK(status_of(ue) == CL_COMPLETE, "user event status %d", status_of(ue));
  CL_OK(clEnqueueReadBuffer(q, bc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL));
  for (int i = 0; i < N; i++) CHECK(c[i] == 7, "gated write c[%d] = %d", i, c[i]);

  /* A barrier orders everything before it in an out-of-order queue. */
  CL_OK(clSetKernelArg(kscale, 1, sizeof s, &s));
  CL_OK(clEnqueueNDRangeKernel(q, kscale, 1, NULL, &g, NULL, 0, NULL, NULL));
  CL_OK(clEnqueueBarrierWithWaitList(q, 0, NULL, NULL));
  CL_OK(clEnqueueNDRangeKernel(q, kscale, 1, NULL, &g, NULL, 0, NULL, NULL));
  CL_OK(clEnqueueBarrierWithWaitList(q, 0, NULL, NULL));
  CL_OK(clEnqueueReadBuffer(q, bc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL));
  for (int i = 0; i < N; i++) CHECK(c[i] == 63, "after barriers c[%d] = %d, expected 63", i, c[i]);

  /* Cross-queue dependency: a write on q gates a kernel on the in-order env.q. */
  cl_event ue2 = clCreateUserEvent(env.ctx, &err), e_w2, e_k2;
  CL_OK(err);
  int ones[N];
  for (int i = 0; i < N; i++) ones[i] = 1;
  CL_OK(clEnqueueWriteBuffer(q, bc, CL_FALSE, 0, sizeof ones, ones, 1, &ue2, &e_w2));
  CL_OK(clSetKernelArg(kscale, 1, sizeof s, &s));
  CL_OK(clEnqueueNDRangeKernel(env.q, kscale, 1, NULL, &g, NULL, 1, &e_w2, &e_k2));
  CL_OK(clFlush(env.q));
  CL_OK(clSetUserEventStatus(ue2, CL_COMPLETE));
  CL_OK(clWaitForEvents(1, &e_k2));
  CL_OK(clEnqueueReadBuffer(env.q, bc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL));
  for (int i = 0; i < N; i++) CHECK(c[i] == 3, "cross-queue c[%d] = %d, expected 3", i, c[i]);

  /* Retain/release bookkeeping. */
  cl_uint refs0 = 0, refs = 0;
  CL_OK(clGetEventInfo(e_add, CL_EVENT_REFERENCE_COUNT, sizeof refs0, &refs0, NULL));
  CL_OK(clRetainEvent(e_add));
  CL_OK(clGetEventInfo(e_add, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  CHECK(refs0 >= 1 && refs == refs0 + 1, "event reference count %u -> %u after retain", refs0, refs);
  CL_OK(clReleaseEvent(e_add));

  cl_event evs[] = {e_wa, e_wb, e_add, e_scale, e_read, ue, e_gated, e_marker, ue2, e_w2, e_k2};
  for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++) CL_OK(clReleaseEvent(evs[i]));
  CL_OK(clFinish(q));
  CL_OK(clReleaseCommandQueue(q));
  CL_OK(clReleaseKernel(kadd));
  CL_OK(clReleaseKernel(kscale));
  CL_OK(clReleaseProgram(p));
  CL_OK(clReleaseMemObject(ba));
  CL_OK(clReleaseMemObject(bb));
  CL_OK(clReleaseMemObject(bc));
  teardown(&env);
  return finish("events");
}
