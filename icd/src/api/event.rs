//! The event entry points, and event wait lists (which every command takes).
#![allow(clippy::missing_safety_doc)] // entry points: the OpenCL specification is the contract

use crate::api::entry::{call, call_ptr};
use crate::api::info::{slice, v, write_info};
use crate::consts::*;
use crate::core::context::{self, Context};
use crate::core::event::{get_event, set_user_status, Event, EventCallback};
use crate::core::object::{self, Ref};
use crate::core::UserPtr;
use crate::types::*;
use std::ffi::c_void;

/// Validates an event wait list for a command of `ctx` (None: `clWaitForEvents`).
pub fn wait_list(
    ctx: Option<&Ref<Context>>,
    num: cl_uint,
    list: *const cl_event,
) -> Result<Vec<Ref<Event>>, cl_int> {
    // CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and num_events_in_wait_list > 0,
    // or event_wait_list is not NULL and num_events_in_wait_list is 0, or if event objects
    // in event_wait_list are not valid events.
    if (num == 0) != list.is_null() {
        return Err(CL_INVALID_EVENT_WAIT_LIST);
    }
    let mut out = Vec::new();
    for &e in slice(list, num as usize, CL_INVALID_EVENT_WAIT_LIST)? {
        let ev = get_event(e).map_err(|_| CL_INVALID_EVENT_WAIT_LIST)?;
        // CL_INVALID_CONTEXT if the context associated with command_queue and events in
        // event_wait_list are not the same.
        if let Some(c) = ctx {
            if !std::sync::Arc::ptr_eq(c, &ev.context) {
                return Err(CL_INVALID_CONTEXT);
            }
        }
        out.push(ev);
    }
    Ok(out)
}

pub unsafe extern "C" fn clWaitForEvents(
    num_events: cl_uint,
    event_list: *const cl_event,
) -> cl_int {
    call("clWaitForEvents", || {
        // CL_INVALID_VALUE if num_events is zero or event_list is NULL.
        if num_events == 0 || event_list.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_EVENT if event objects specified in event_list are not valid event
        // objects.
        let evs = wait_list(None, num_events, event_list).map_err(|_| CL_INVALID_EVENT)?;
        // CL_INVALID_CONTEXT if events specified in event_list do not belong to the same
        // context.
        if evs
            .iter()
            .any(|e| !std::sync::Arc::ptr_eq(&e.context, &evs[0].context))
        {
            return Err(CL_INVALID_CONTEXT);
        }
        let mut failed = false;
        for e in &evs {
            failed |= e.host_wait() < 0;
        }
        if failed {
            Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        } else {
            Ok(())
        }
    })
}

pub unsafe extern "C" fn clCreateUserEvent(
    context: cl_context,
    errcode_ret: *mut cl_int,
) -> cl_event {
    call_ptr("clCreateUserEvent", errcode_ret, || {
        let ctx = context::get(context)?;
        let ev = Event::new(ctx, 0, CL_COMMAND_USER, false, CL_SUBMITTED as cl_int);
        Ok(object::into_handle(ev))
    })
}

pub unsafe extern "C" fn clSetUserEventStatus(event: cl_event, execution_status: cl_int) -> cl_int {
    call("clSetUserEventStatus", || {
        let ev = get_event(event)?;
        // CL_INVALID_EVENT if event is not a valid user event object.
        if ev.command_type != CL_COMMAND_USER {
            return Err(CL_INVALID_EVENT);
        }
        // CL_INVALID_VALUE if the execution_status is not CL_COMPLETE or a negative integer
        // value.
        if execution_status > CL_COMPLETE as cl_int {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_OPERATION if the execution_status for event has already been changed by
        // a previous call to clSetUserEventStatus.
        if ev.status() <= CL_COMPLETE as cl_int {
            return Err(CL_INVALID_OPERATION);
        }
        set_user_status(&ev, execution_status);
        Ok(())
    })
}

pub unsafe extern "C" fn clSetEventCallback(
    event: cl_event,
    command_exec_callback_type: cl_int,
    pfn_notify: Option<EventCallback>,
    user_data: *mut c_void,
) -> cl_int {
    call("clSetEventCallback", || {
        let ev = get_event(event)?;
        // CL_INVALID_VALUE if pfn_event_notify is NULL or if command_exec_callback_type is
        // not CL_SUBMITTED, CL_RUNNING, or CL_COMPLETE.
        let f = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        let when = command_exec_callback_type;
        if ![CL_SUBMITTED, CL_RUNNING, CL_COMPLETE].contains(&(when as cl_uint)) {
            return Err(CL_INVALID_VALUE);
        }
        if let Some(s) = ev.add_callback(when, f, UserPtr(user_data)) {
            let s = if s < 0 { s } else { when };
            // SAFETY: the application's callback with its own event handle.
            unsafe { f(event, s, user_data) };
        }
        Ok(())
    })
}

pub unsafe extern "C" fn clRetainEvent(e: cl_event) -> cl_int {
    call("clRetainEvent", || object::retain::<Event, _>(e))
}

pub unsafe extern "C" fn clReleaseEvent(e: cl_event) -> cl_int {
    call("clReleaseEvent", || object::release::<Event, _>(e))
}

pub unsafe extern "C" fn clGetEventInfo(
    e: cl_event,
    param_name: cl_event_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetEventInfo", || {
        let ev = get_event(e)?;
        let answer = match param_name {
            CL_EVENT_COMMAND_QUEUE => v(&(ev.queue_handle as cl_command_queue)),
            CL_EVENT_CONTEXT => v(&object::handle::<Context>(&ev.context)),
            CL_EVENT_COMMAND_TYPE => v(&ev.command_type),
            CL_EVENT_COMMAND_EXECUTION_STATUS => {
                let status = ev.status();
                if status <= CL_COMPLETE as cl_int {
                    // Polling completion is a wait too.
                    ev.host_saw();
                }
                v(&status)
            }
            CL_EVENT_REFERENCE_COUNT => v(&object::ref_count(&ev)),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

pub unsafe extern "C" fn clGetEventProfilingInfo(
    e: cl_event,
    param_name: cl_profiling_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetEventProfilingInfo", || {
        let ev = get_event(e)?;
        if !ev.profiling || ev.command_type == CL_COMMAND_USER {
            return Err(CL_PROFILING_INFO_NOT_AVAILABLE);
        }
        let (status, t) = ev.times();
        let done = status <= CL_COMPLETE as cl_int;
        let answer = match param_name {
            CL_PROFILING_COMMAND_QUEUED => v(&t[0]),
            CL_PROFILING_COMMAND_SUBMIT => v(&t[1]),
            _ if !done => Err(CL_PROFILING_INFO_NOT_AVAILABLE),
            CL_PROFILING_COMMAND_START => v(&t[2].max(t[1])),
            CL_PROFILING_COMMAND_END | CL_PROFILING_COMMAND_COMPLETE => v(&t[3].max(t[2])),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::context;
    use crate::api::queue::{
        clCreateCommandQueue, clEnqueueMarkerWithWaitList, clFinish, clReleaseCommandQueue,
    };
    use crate::core::platform::device_id;
    use std::sync::atomic::{AtomicI32, Ordering};

    static SEEN: AtomicI32 = AtomicI32::new(1);
    unsafe extern "C" fn cb(_e: cl_event, status: cl_int, _u: *mut c_void) {
        SEEN.store(status, Ordering::SeqCst);
    }

    #[test]
    fn user_event_failure_propagates_through_wait_lists() {
        let c = context::test_context();
        let mut err = 0;
        // SAFETY: all handles below are live, out-pointers valid.
        unsafe {
            let q = clCreateCommandQueue(c, device_id(), CL_QUEUE_PROFILING_ENABLE, &mut err);
            assert_eq!(err, CL_SUCCESS);
            let user = clCreateUserEvent(c, &mut err);
            assert_eq!(err, CL_SUCCESS);
            let mut m: cl_event = std::ptr::null_mut();
            assert_eq!(clEnqueueMarkerWithWaitList(q, 1, &user, &mut m), CL_SUCCESS);
            assert_eq!(
                clSetEventCallback(m, CL_COMPLETE as cl_int, Some(cb), std::ptr::null_mut()),
                CL_SUCCESS
            );
            assert_eq!(get_event(m).map(|e| e.status()), Ok(CL_SUBMITTED as cl_int));
            assert_eq!(clSetUserEventStatus(user, -42), CL_SUCCESS);
            assert_eq!(
                clWaitForEvents(1, &m),
                CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
            );
            // Callbacks run on the executor thread right after the status change.
            for _ in 0..200 {
                if SEEN.load(Ordering::SeqCst) != 1 {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            assert_eq!(
                SEEN.load(Ordering::SeqCst),
                CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
            );
            assert_eq!(
                clSetUserEventStatus(user, CL_COMPLETE as cl_int),
                CL_INVALID_OPERATION
            );
            // A later marker without the failed event completes, with profiling times in order.
            let mut m2: cl_event = std::ptr::null_mut();
            assert_eq!(
                clEnqueueMarkerWithWaitList(q, 0, std::ptr::null(), &mut m2),
                CL_SUCCESS
            );
            assert_eq!(clFinish(q), CL_SUCCESS);
            let mut t = [0u64; 4];
            for (i, p) in [
                CL_PROFILING_COMMAND_QUEUED,
                CL_PROFILING_COMMAND_SUBMIT,
                CL_PROFILING_COMMAND_START,
                CL_PROFILING_COMMAND_END,
            ]
            .iter()
            .enumerate()
            {
                assert_eq!(
                    clGetEventProfilingInfo(
                        m2,
                        *p,
                        8,
                        (&mut t[i] as *mut u64).cast(),
                        std::ptr::null_mut()
                    ),
                    CL_SUCCESS
                );
            }
            assert!(t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3], "{t:?}");
            assert_eq!(
                clGetEventProfilingInfo(
                    user,
                    CL_PROFILING_COMMAND_QUEUED,
                    8,
                    t.as_mut_ptr().cast(),
                    std::ptr::null_mut()
                ),
                CL_PROFILING_INFO_NOT_AVAILABLE
            );
            // Wrong handle types are rejected.
            assert_eq!(clFinish(c.cast()), CL_INVALID_COMMAND_QUEUE);
            assert_eq!(clWaitForEvents(1, &(q as cl_event)), CL_INVALID_EVENT);
            for e in [m, m2, user] {
                assert_eq!(clReleaseEvent(e), CL_SUCCESS);
            }
            assert_eq!(clReleaseCommandQueue(q), CL_SUCCESS);
            assert_eq!(context::clReleaseContext(c), CL_SUCCESS);
        }
    }
}
