//! Command queues and events. Each queue has one executor thread fed through a channel;
//! commands run in submission order (which is a valid schedule for out-of-order queues too),
//! each after the events of its wait list, across queues as well.
#![allow(clippy::missing_safety_doc)] // entry points: the OpenCL specification is the contract

use crate::consts::*;
use crate::context::{self, Context};
use crate::entry::{call, call_ptr};
use crate::info::{out, properties, properties_as_passed, slice, v, write_info, UserPtr};
use crate::object::{self, ClObject, Ref};
use crate::order::{self, Clock, Point, QueueOrder};
use crate::platform::{check_device, device_id, now_ns};
use crate::types::*;
use crossbeam_channel::{unbounded, Sender};
use parking_lot::{Condvar, Mutex};
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, OnceLock};

pub type EventCallback = unsafe extern "C" fn(cl_event, cl_int, *mut c_void);

struct EventState {
    status: cl_int,
    callbacks: Vec<(cl_int, EventCallback, UserPtr)>,
    /// Out-of-order executors with a command waiting for this event, woken when it ends.
    wakers: Vec<Sender<()>>,
    /// queued, submit, start, end (ns).
    times: [u64; 4],
}

pub struct Event {
    pub context: Ref<Context>,
    /// Handle of the queue the command was enqueued on (0 for user events).
    pub queue_handle: usize,
    pub command_type: cl_command_type,
    pub profiling: bool,
    state: Mutex<EventState>,
    cond: Condvar,
    /// The commands known complete once this one is, itself included (see `order`); set
    /// before the event completes.
    order: OnceLock<Arc<Clock>>,
}

impl ClObject for Event {
    const TAG: u32 = 0x5C1_0008;
    const INVALID: i32 = CL_INVALID_EVENT;
    type Handle = cl_event;
}

impl Event {
    fn new(
        context: Ref<Context>,
        queue_handle: usize,
        command_type: cl_command_type,
        profiling: bool,
        status: cl_int,
    ) -> Ref<Event> {
        let t = now_ns();
        object::create(Event {
            context,
            queue_handle,
            command_type,
            profiling,
            state: Mutex::new(EventState {
                status,
                callbacks: Vec::new(),
                wakers: Vec::new(),
                times: [t, 0, 0, 0],
            }),
            cond: Condvar::new(),
            order: OnceLock::new(),
        })
    }

    pub fn status(&self) -> cl_int {
        self.state.lock().status
    }

    /// Blocks until the command completed (or failed); returns the final status.
    pub fn wait(&self) -> cl_int {
        let mut st = self.state.lock();
        while st.status > CL_COMPLETE as cl_int {
            self.cond.wait(&mut st);
        }
        st.status
    }

    /// [`Event::wait`] by the application: what completed is now ordered before everything
    /// it enqueues later.
    pub fn host_wait(&self) -> cl_int {
        let s = self.wait();
        self.host_saw();
        s
    }

    /// Arranges for `waker` to be signalled when the event ends; false if it already has.
    fn wake_when_done(&self, waker: &Sender<()>) -> bool {
        let mut st = self.state.lock();
        if st.status <= CL_COMPLETE as cl_int {
            return false;
        }
        st.wakers.push(waker.clone());
        true
    }

    fn host_saw(&self) {
        if let Some(c) = self.order.get() {
            order::host_saw(c);
        }
    }
}

/// Moves an event to `status` (only ever downwards), firing the callbacks that became due.
pub fn set_status(ev: &Ref<Event>, status: cl_int) {
    let due: Vec<_> = {
        let mut st = ev.state.lock();
        if status >= st.status || st.status <= CL_COMPLETE as cl_int {
            return;
        }
        let t = now_ns();
        let prev = st.status;
        st.status = status;
        for (i, level) in [CL_SUBMITTED, CL_RUNNING, CL_COMPLETE].iter().enumerate() {
            let level = *level as cl_int;
            if prev > level && status <= level {
                st.times[i + 1] = t;
            }
        }
        let (due, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut st.callbacks)
            .into_iter()
            .partition(|(when, _, _)| status <= *when);
        st.callbacks = keep;
        if status <= CL_COMPLETE as cl_int {
            for w in st.wakers.drain(..) {
                let _ = w.try_send(());
            }
        }
        ev.cond.notify_all();
        due
    };
    let h: cl_event = object::handle(ev);
    for (when, f, user) in due {
        let s = if status < 0 { status } else { when };
        // SAFETY: the application's callback, with the event handle (kept alive by `ev`).
        unsafe { f(h, s, user.0) };
    }
}

pub fn get_event(e: cl_event) -> Result<Ref<Event>, cl_int> {
    object::get::<Event, _>(e)
}

/// Validates an event wait list for a command of `ctx` (None: `clWaitForEvents`).
pub fn wait_list(
    ctx: Option<&Ref<Context>>,
    num: cl_uint,
    list: *const cl_event,
) -> Result<Vec<Ref<Event>>, cl_int> {
    if (num == 0) != list.is_null() {
        return Err(CL_INVALID_EVENT_WAIT_LIST);
    }
    let mut out = Vec::new();
    for &e in slice(list, num as usize, CL_INVALID_EVENT_WAIT_LIST)? {
        let ev = get_event(e).map_err(|_| CL_INVALID_EVENT_WAIT_LIST)?;
        if let Some(c) = ctx {
            if !std::sync::Arc::ptr_eq(c, &ev.context) {
                return Err(CL_INVALID_CONTEXT);
            }
        }
        out.push(ev);
    }
    Ok(out)
}

/// The work of a command; runs on the queue's executor thread.
pub type Work = Box<dyn FnOnce() -> Result<(), cl_int> + Send>;

struct Command {
    event: Ref<Event>,
    waits: Vec<Ref<Event>>,
    work: Work,
    start: order::Start,
    /// Events the command is ordered after without waiting for them (an out-of-order queue's
    /// last barrier, already complete).
    after: Vec<Ref<Event>>,
}

pub struct Queue {
    pub context: Ref<Context>,
    pub properties: cl_command_queue_properties,
    pub properties_array: Vec<cl_queue_properties>,
    tx: Sender<Command>,
    order: Arc<QueueOrder>,
    last: Mutex<Option<Ref<Event>>>,
    /// Out-of-order queues: commands not known to be complete, and the last barrier.
    outstanding: Mutex<Vec<Ref<Event>>>,
    barrier: Mutex<Option<Ref<Event>>>,
}

impl Queue {
    fn out_of_order(&self) -> bool {
        self.properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0
    }
}

impl ClObject for Queue {
    const TAG: u32 = 0x5C1_0004;
    const INVALID: i32 = CL_INVALID_COMMAND_QUEUE;
    type Handle = cl_command_queue;
}

/// The point of a starting command and its clock (what completed before it), from its wait
/// list, its ordering and, on an in-order queue, the previous command's clock `prev`.
fn start_clock(cmd: &Command, q: &QueueOrder, prev: Option<&Clock>) -> (Point, Clock, bool) {
    let mut c = (*cmd.start.host).clone();
    for e in cmd.waits.iter().chain(&cmd.after) {
        if let Some(d) = e.order.get() {
            c.join(d);
        }
    }
    match cmd.start.point {
        Some((p, all)) => {
            if all {
                c.join(&q.done());
            }
            (p, c, all)
        }
        None => {
            if let Some(prev) = prev {
                c.join(prev);
            }
            (q.next_point(), c, true)
        }
    }
}

/// Runs one command whose turn has come; returns its done clock.
fn run_command(cmd: Command, q: &QueueOrder, prev: Option<&Clock>) -> Arc<Clock> {
    let failed = cmd.waits.iter().any(|w| w.wait() < 0);
    let (point, start, follows_queue) = start_clock(&cmd, q, prev);
    drop(cmd.waits);
    drop(cmd.after);
    let mut done = start.clone();
    if follows_queue {
        done.add_prefix(point);
    } else {
        done.add_point(point);
    }
    let done = Arc::new(done);
    let finish = |status: cl_int| {
        q.completed(&done);
        let _ = cmd.event.order.set(done.clone());
        set_status(&cmd.event, status);
    };
    if failed {
        finish(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        return done.clone();
    }
    set_status(&cmd.event, CL_RUNNING as cl_int);
    let work = cmd.work;
    let status = match order::with_current(point, Arc::new(start), || {
        catch_unwind(AssertUnwindSafe(work))
    }) {
        Ok(Ok(())) => CL_COMPLETE as cl_int,
        Ok(Err(e)) => e,
        Err(_) => {
            tracing::error!("internal error while running a command");
            CL_OUT_OF_RESOURCES
        }
    };
    finish(status);
    done
}

fn ready(cmd: &Command) -> bool {
    cmd.waits
        .iter()
        .all(|w| w.status() <= CL_COMPLETE as cl_int)
}

/// The executor thread of a queue. In-order queues run commands strictly in submission
/// order. Out-of-order queues set aside commands whose wait list is not complete yet and run
/// later ones meanwhile (markers and barriers carry their implicit dependencies as waits).
/// A command an out-of-order queue set aside, and which event of its wait list will wake the
/// executor when it ends.
struct SetAside {
    cmd: Command,
    armed: Option<usize>,
}

/// Set-aside commands sleep until an event of their wait list ends and signals the executor.
fn executor(rx: crossbeam_channel::Receiver<Command>, q: Arc<QueueOrder>, out_of_order: bool) {
    let (wake, woken) = crossbeam_channel::unbounded::<()>();
    let mut pending: Vec<SetAside> = Vec::new();
    // In-order queues: the previous command's done clock.
    let mut prev: Option<Arc<Clock>> = None;
    let mut open = true;
    loop {
        while let Some(i) = pending.iter().position(|p| ready(&p.cmd)) {
            run_command(pending.remove(i).cmd, &q, None);
        }
        let mut runnable = false;
        for p in &mut pending {
            let armed = p
                .armed
                .is_some_and(|i| p.cmd.waits[i].status() > CL_COMPLETE as cl_int);
            if !armed {
                p.armed = p.cmd.waits.iter().position(|w| w.wake_when_done(&wake));
                // Every event ended meanwhile: the scan above runs it.
                runnable |= p.armed.is_none();
            }
        }
        if runnable {
            continue;
        }
        let next = if !open {
            // The queue is gone; set-aside commands still run when their events end.
            if pending.is_empty() {
                return;
            }
            let _ = woken.recv();
            continue;
        } else if pending.is_empty() {
            match rx.recv() {
                Ok(c) => c,
                Err(_) => return,
            }
        } else {
            crossbeam_channel::select! {
                recv(rx) -> c => match c {
                    Ok(c) => c,
                    Err(_) => {
                        open = false;
                        continue;
                    }
                },
                recv(woken) -> _ => continue,
            }
        };
        if out_of_order && !ready(&next) {
            pending.push(SetAside {
                cmd: next,
                armed: None,
            });
        } else if out_of_order {
            run_command(next, &q, None);
        } else {
            prev = Some(run_command(next, &q, prev.as_deref()));
        }
    }
}

pub fn get_queue(q: cl_command_queue) -> Result<Ref<Queue>, cl_int> {
    object::get::<Queue, _>(q)
}

/// Submits a command. `event_out` receives a new event handle when not NULL; `blocking`
/// waits for completion and reports a failed wait list as
/// `CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST`.
pub fn enqueue(
    q: &Ref<Queue>,
    command_type: cl_command_type,
    waits: Vec<Ref<Event>>,
    event_out: *mut cl_event,
    blocking: bool,
    work: Work,
) -> Result<(), cl_int> {
    let mut waits = waits;
    let done = |e: &Ref<Event>| e.status() <= CL_COMPLETE as cl_int;
    let profiling = q.properties & CL_QUEUE_PROFILING_ENABLE != 0;
    let qh: cl_command_queue = object::handle(q);
    let ev = Event::new(
        q.context.clone(),
        qh as usize,
        command_type,
        profiling,
        CL_QUEUED as cl_int,
    );
    let mut start = order::Start {
        host: order::host_clock(),
        point: None,
    };
    let mut after = Vec::new();
    if q.out_of_order() {
        let mut outstanding = q.outstanding.lock();
        outstanding.retain(|e| !done(e));
        let mut barrier = q.barrier.lock();
        if let Some(b) = barrier.as_ref() {
            if done(b) {
                after.push(b.clone());
            } else {
                waits.push(b.clone());
            }
        }
        let sync = command_type == CL_COMMAND_MARKER || command_type == CL_COMMAND_BARRIER;
        let all = sync && waits.is_empty();
        if all {
            waits.extend(outstanding.iter().cloned());
        }
        start.point = Some((q.order.next_point(), all));
        if command_type == CL_COMMAND_BARRIER {
            *barrier = Some(ev.clone());
        }
        outstanding.push(ev.clone());
    }
    set_status(&ev, CL_SUBMITTED as cl_int);
    *q.last.lock() = Some(ev.clone());
    q.tx.send(Command {
        event: ev.clone(),
        waits,
        work,
        start,
        after,
    })
    .map_err(|_| CL_OUT_OF_RESOURCES)?;
    if blocking {
        let s = ev.host_wait();
        if s < 0 {
            // A failed call hands out no event.
            return Err(if s == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST {
                s
            } else {
                CL_OUT_OF_RESOURCES
            });
        }
    }
    if !event_out.is_null() {
        out(event_out, object::into_handle(ev));
    }
    Ok(())
}

/// Waits for every command submitted to `q` so far.
pub fn finish(q: &Queue) {
    let last = q.last.lock().clone();
    let outstanding = q.outstanding.lock().clone();
    for e in outstanding.iter().chain(last.iter()) {
        e.wait();
    }
    order::host_saw(&q.order.done());
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
    let (tx, rx) = unbounded();
    let order = QueueOrder::new();
    let executor_order = order.clone();
    std::thread::Builder::new()
        .name("shadowcl-queue".into())
        .spawn(move || {
            executor(
                rx,
                executor_order,
                props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0,
            )
        })
        .map_err(|_| CL_OUT_OF_HOST_MEMORY)?;
    let q = object::create(Queue {
        context: ctx,
        properties: props,
        properties_array: array,
        tx,
        order,
        last: Mutex::new(None),
        outstanding: Mutex::new(Vec::new()),
        barrier: Mutex::new(None),
    });
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

pub unsafe extern "C" fn clWaitForEvents(
    num_events: cl_uint,
    event_list: *const cl_event,
) -> cl_int {
    call("clWaitForEvents", || {
        if num_events == 0 || event_list.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let evs = wait_list(None, num_events, event_list).map_err(|_| CL_INVALID_EVENT)?;
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
        if ev.command_type != CL_COMMAND_USER {
            return Err(CL_INVALID_EVENT);
        }
        if execution_status > CL_COMPLETE as cl_int {
            return Err(CL_INVALID_VALUE);
        }
        if ev.status() <= CL_COMPLETE as cl_int {
            return Err(CL_INVALID_OPERATION);
        }
        // Commands waiting for it follow what the host had waited for until now.
        let _ = ev.order.set(order::host_clock());
        set_status(&ev, execution_status);
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
        let f = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        let when = command_exec_callback_type;
        if ![CL_SUBMITTED, CL_RUNNING, CL_COMPLETE].contains(&(when as cl_uint)) {
            return Err(CL_INVALID_VALUE);
        }
        let now = {
            let mut st = ev.state.lock();
            if st.status <= when {
                Some(st.status)
            } else {
                st.callbacks.push((when, f, UserPtr(user_data)));
                None
            }
        };
        if let Some(s) = now {
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
        let (status, t) = {
            let st = ev.state.lock();
            (st.status, st.times)
        };
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
    use std::sync::atomic::{AtomicI32, Ordering};

    static SEEN: AtomicI32 = AtomicI32::new(1);
    unsafe extern "C" fn cb(_e: cl_event, status: cl_int, _u: *mut c_void) {
        SEEN.store(status, Ordering::SeqCst);
    }

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
            let k = crate::mem::clCreateBuffer(c, 0, 4, std::ptr::null_mut(), &mut err);
            let pat = 7u32;
            assert_eq!(
                crate::mem::clEnqueueFillBuffer(
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
            assert_eq!(crate::mem::clReleaseMemObject(k), CL_SUCCESS);
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
