//! The command-queue entry points, markers and barriers, and [`enqueue`], which every command
//! goes through.
#![allow(clippy::missing_safety_doc)] // entry points: the OpenCL specification is the contract

use crate::api::entry::{call, call_ptr};
use crate::api::event::wait_list;
use crate::api::info::{out, properties, properties_as_passed, v, write_info};
use crate::api::platform::check_device;
use crate::consts::*;
use crate::core::context::{self, Context};
use crate::core::event::Event;
use crate::core::object::{self, Ref};
use crate::core::platform::device_id;
use crate::core::queue::{finish, get_queue, submit, Queue, Work};
use crate::types::*;
use std::ffi::c_void;

/// Submits a command ([`submit`]); `event_out` receives a new event handle when not NULL (a
/// failed call hands out none).
pub(crate) fn enqueue(
    q: &Ref<Queue>,
    command_type: cl_command_type,
    waits: Vec<Ref<Event>>,
    event_out: *mut cl_event,
    blocking: bool,
    work: Work,
) -> Result<(), cl_int> {
    let ev = submit(q, command_type, waits, blocking, work)?;
    if !event_out.is_null() {
        out(event_out, object::into_handle(ev));
    }
    Ok(())
}

const QUEUE_PROPS: cl_command_queue_properties =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;

fn create_queue(
    context: cl_context,
    device: cl_device_id,
    props: cl_command_queue_properties,
    array: Vec<cl_queue_properties>,
) -> Result<cl_command_queue, cl_int> {
    let ctx = context::get(context)?;
    check_device(device)?;
    if props & !(QUEUE_PROPS | CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT) != 0 {
        return Err(CL_INVALID_VALUE);
    }
    if props & (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT) != 0 {
        return Err(CL_INVALID_QUEUE_PROPERTIES);
    }
    let q = Queue::new(ctx, props, array)?;
    Ok(object::into_handle(q))
}

pub unsafe extern "C" fn clCreateCommandQueue(
    context: cl_context,
    device: cl_device_id,
    properties: cl_command_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    call_ptr("clCreateCommandQueue", errcode_ret, || {
        create_queue(context, device, properties, Vec::new())
    })
}

pub unsafe extern "C" fn clCreateCommandQueueWithProperties(
    context: cl_context,
    device: cl_device_id,
    props: *const cl_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    call_ptr("clCreateCommandQueueWithProperties", errcode_ret, || {
        let pairs = properties(props)?;
        let mut bits = 0;
        for &(name, value) in &pairs {
            match name as cl_uint {
                CL_QUEUE_PROPERTIES => bits = value,
                CL_QUEUE_SIZE => return Err(CL_INVALID_QUEUE_PROPERTIES),
                _ => return Err(CL_INVALID_VALUE),
            }
        }
        create_queue(context, device, bits, properties_as_passed(props, &pairs))
    })
}

pub unsafe extern "C" fn clSetCommandQueueProperty(
    command_queue: cl_command_queue,
    _properties: cl_command_queue_properties,
    _enable: cl_bool,
    _old_properties: *mut cl_command_queue_properties,
) -> cl_int {
    call("clSetCommandQueueProperty", || {
        get_queue(command_queue)?;
        Err(CL_INVALID_OPERATION)
    })
}

pub unsafe extern "C" fn clRetainCommandQueue(q: cl_command_queue) -> cl_int {
    call("clRetainCommandQueue", || object::retain::<Queue, _>(q))
}

pub unsafe extern "C" fn clReleaseCommandQueue(q: cl_command_queue) -> cl_int {
    call("clReleaseCommandQueue", || {
        // Implicit flush: commands already run; the executor drains its channel.
        object::release::<Queue, _>(q)
    })
}

pub unsafe extern "C" fn clGetCommandQueueInfo(
    q: cl_command_queue,
    param_name: cl_command_queue_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetCommandQueueInfo", || {
        let q = get_queue(q)?;
        let answer = match param_name {
            CL_QUEUE_CONTEXT => v(&object::handle::<Context>(&q.context)),
            CL_QUEUE_DEVICE => v(&device_id()),
            CL_QUEUE_REFERENCE_COUNT => v(&object::ref_count(&q)),
            CL_QUEUE_PROPERTIES => v(&q.properties),
            CL_QUEUE_PROPERTIES_ARRAY => v(&q.properties_array),
            CL_QUEUE_SIZE => Err(CL_INVALID_COMMAND_QUEUE),
            CL_QUEUE_DEVICE_DEFAULT => v(&std::ptr::null_mut::<_cl_command_queue>()),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

pub unsafe extern "C" fn clFlush(q: cl_command_queue) -> cl_int {
    call("clFlush", || get_queue(q).map(drop))
}

pub unsafe extern "C" fn clFinish(q: cl_command_queue) -> cl_int {
    call("clFinish", || {
        finish(&get_queue(q)?.inner);
        Ok(())
    })
}

fn marker(
    q: cl_command_queue,
    ty: cl_command_type,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> Result<(), cl_int> {
    let q = get_queue(q)?;
    let waits = wait_list(Some(&q.context), num, list)?;
    // Commands run in submission order, so completing after everything before it and after
    // its wait list is exactly what markers and barriers promise.
    enqueue(&q, ty, waits, event, false, Box::new(|| Ok(())))
}

pub unsafe extern "C" fn clEnqueueMarker(q: cl_command_queue, event: *mut cl_event) -> cl_int {
    call("clEnqueueMarker", || {
        if event.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        marker(q, CL_COMMAND_MARKER, 0, std::ptr::null(), event)
    })
}

pub unsafe extern "C" fn clEnqueueMarkerWithWaitList(
    q: cl_command_queue,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueMarkerWithWaitList", || {
        marker(q, CL_COMMAND_MARKER, num, list, event)
    })
}

pub unsafe extern "C" fn clEnqueueBarrierWithWaitList(
    q: cl_command_queue,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueBarrierWithWaitList", || {
        marker(q, CL_COMMAND_BARRIER, num, list, event)
    })
}

pub unsafe extern "C" fn clEnqueueBarrier(q: cl_command_queue) -> cl_int {
    call("clEnqueueBarrier", || {
        marker(
            q,
            CL_COMMAND_BARRIER,
            0,
            std::ptr::null(),
            std::ptr::null_mut(),
        )
    })
}

pub unsafe extern "C" fn clEnqueueWaitForEvents(
    q: cl_command_queue,
    num: cl_uint,
    list: *const cl_event,
) -> cl_int {
    call("clEnqueueWaitForEvents", || {
        if num == 0 || list.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        marker(q, CL_COMMAND_BARRIER, num, list, std::ptr::null_mut())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::context;
    use crate::api::event::{
        clCreateUserEvent, clReleaseEvent, clSetUserEventStatus, clWaitForEvents,
    };
    use crate::core::event::get_event;

    /// An out-of-order queue with one command held back: a marker waiting on a user event
    /// the test has not completed yet.
    struct BlockedOutOfOrderQueue {
        context: cl_context,
        queue: cl_command_queue,
        user_event: cl_event,
        /// The held-back marker's event.
        blocked: cl_event,
    }

    fn blocked_out_of_order_queue() -> BlockedOutOfOrderQueue {
        let c = context::test_context();
        let mut err = 0;
        // SAFETY: c is live, out-pointers valid.
        unsafe {
            let q = clCreateCommandQueue(
                c,
                device_id(),
                CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                &mut err,
            );
            assert_eq!(err, CL_SUCCESS);
            let user = clCreateUserEvent(c, &mut err);
            let mut blocked: cl_event = std::ptr::null_mut();
            assert_eq!(
                clEnqueueMarkerWithWaitList(q, 1, &user, &mut blocked),
                CL_SUCCESS
            );
            BlockedOutOfOrderQueue {
                context: c,
                queue: q,
                user_event: user,
                blocked,
            }
        }
    }

    #[test]
    fn out_of_order_queues_run_independent_commands_past_a_blocked_one() {
        let BlockedOutOfOrderQueue {
            context: c,
            queue: q,
            user_event: user,
            blocked,
        } = blocked_out_of_order_queue();
        let mut err = 0;
        // SAFETY: all handles below are live, out-pointers valid.
        unsafe {
            let mut free: cl_event = std::ptr::null_mut();
            assert_eq!(
                clEnqueueMarkerWithWaitList(q, 1, &blocked, std::ptr::null_mut()),
                CL_SUCCESS
            );
            // Independent of the user event: completes although the earlier command waits.
            let mut bar: cl_event = std::ptr::null_mut();
            assert_eq!(
                clEnqueueBarrierWithWaitList(q, 1, &free, &mut bar),
                CL_INVALID_EVENT_WAIT_LIST
            );
            let k = crate::api::buffer::clCreateBuffer(c, 0, 4, std::ptr::null_mut(), &mut err);
            let pat = 7u32;
            assert_eq!(
                crate::api::buffer::clEnqueueFillBuffer(
                    q,
                    k,
                    (&pat as *const u32).cast(),
                    4,
                    0,
                    4,
                    0,
                    std::ptr::null(),
                    &mut free
                ),
                CL_SUCCESS
            );
            assert_eq!(clWaitForEvents(1, &free), CL_SUCCESS);
            assert_eq!(
                get_event(blocked).map(|e| e.status()),
                Ok(CL_SUBMITTED as cl_int)
            );
            // A barrier waits for everything before it.
            assert_eq!(
                clEnqueueBarrierWithWaitList(q, 0, std::ptr::null(), &mut bar),
                CL_SUCCESS
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert_eq!(
                get_event(bar).map(|e| e.status() > CL_COMPLETE as cl_int),
                Ok(true)
            );
            assert_eq!(
                clSetUserEventStatus(user, CL_COMPLETE as cl_int),
                CL_SUCCESS
            );
            assert_eq!(clFinish(q), CL_SUCCESS);
            assert_eq!(
                get_event(bar).map(|e| e.status()),
                Ok(CL_COMPLETE as cl_int)
            );
            for e in [user, blocked, free, bar] {
                assert_eq!(clReleaseEvent(e), CL_SUCCESS);
            }
            assert_eq!(crate::api::mem::clReleaseMemObject(k), CL_SUCCESS);
            assert_eq!(clReleaseCommandQueue(q), CL_SUCCESS);
            assert_eq!(context::clReleaseContext(c), CL_SUCCESS);
        }
    }

    /// A command set aside on an out-of-order queue runs when its user event completes, even
    /// after the application released the queue (the executor sleeps on the event, it does
    /// not poll).
    #[test]
    fn set_aside_commands_run_after_the_queue_is_released() {
        let BlockedOutOfOrderQueue {
            context: c,
            queue: q,
            user_event: user,
            blocked: first,
        } = blocked_out_of_order_queue();
        // SAFETY: all handles below are live, out-pointers valid.
        unsafe {
            let mut second: cl_event = std::ptr::null_mut();
            assert_eq!(
                clEnqueueMarkerWithWaitList(q, 1, &first, &mut second),
                CL_SUCCESS
            );
            assert_eq!(clReleaseCommandQueue(q), CL_SUCCESS);
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert_eq!(
                get_event(second).map(|e| e.status()),
                Ok(CL_SUBMITTED as cl_int)
            );
            assert_eq!(
                clSetUserEventStatus(user, CL_COMPLETE as cl_int),
                CL_SUCCESS
            );
            assert_eq!(clWaitForEvents(1, &second), CL_SUCCESS);
            assert_eq!(
                get_event(first).map(|e| e.status()),
                Ok(CL_COMPLETE as cl_int)
            );
            for e in [user, first, second] {
                assert_eq!(clReleaseEvent(e), CL_SUCCESS);
            }
            assert_eq!(context::clReleaseContext(c), CL_SUCCESS);
        }
    }

    /// OpenCL 3.0: CL_QUEUE_SIZE is only valid for a device command-queue; for a host queue
    /// it is "not a valid command-queue for param_name" (CL_INVALID_COMMAND_QUEUE, as the
    /// Khronos CTS checks), for the size query and the value query alike.
    #[test]
    fn queue_size_of_a_host_queue_is_invalid_command_queue() {
        let c = context::test_context();
        let mut err = 0;
        // SAFETY: live handles, out-pointers sized for their answers.
        unsafe {
            let q = clCreateCommandQueue(c, device_id(), 0, &mut err);
            assert_eq!(err, CL_SUCCESS);
            let mut size_ret = 0usize;
            assert_eq!(
                clGetCommandQueueInfo(q, CL_QUEUE_SIZE, 0, std::ptr::null_mut(), &mut size_ret),
                CL_INVALID_COMMAND_QUEUE
            );
            let mut size: cl_uint = 7;
            assert_eq!(
                clGetCommandQueueInfo(
                    q,
                    CL_QUEUE_SIZE,
                    4,
                    (&mut size as *mut cl_uint).cast(),
                    std::ptr::null_mut()
                ),
                CL_INVALID_COMMAND_QUEUE
            );
            assert_eq!((size_ret, size), (0, 7), "nothing written on failure");
            let mut props: cl_command_queue_properties = 1;
            assert_eq!(
                clGetCommandQueueInfo(
                    q,
                    CL_QUEUE_PROPERTIES,
                    8,
                    (&mut props as *mut cl_command_queue_properties).cast(),
                    std::ptr::null_mut()
                ),
                CL_SUCCESS
            );
            assert_eq!(props, 0);
            assert_eq!(clReleaseCommandQueue(q), CL_SUCCESS);
            assert_eq!(context::clReleaseContext(c), CL_SUCCESS);
        }
    }
}
