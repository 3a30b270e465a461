//! Events: the status of a command (or a user event), callbacks on its changes, waits, and
//! what it completed after (for the race checker, see [`crate::core::order`]).

use crate::consts::*;
use crate::core::context::Context;
use crate::core::object::{self, ClObject, Ref};
use crate::core::order::{self, Clock};
use crate::core::platform::now_ns;
use crate::core::UserPtr;
use crate::types::*;
use crossbeam_channel::Sender;
use parking_lot::{Condvar, Mutex};
use std::ffi::c_void;
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
    pub(super) order: OnceLock<Arc<Clock>>,
}

impl ClObject for Event {
    const TAG: u32 = 0x5C1_0008;
    const INVALID: i32 = CL_INVALID_EVENT;
    type Handle = cl_event;
}

impl Event {
    /// A new event of a command of `command_type` (`queue_handle` 0: a user event).
    pub fn new(
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

    /// The command's execution status (`CL_QUEUED` ... `CL_COMPLETE`, or an error).
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
    pub(super) fn wake_when_done(&self, waker: &Sender<()>) -> bool {
        let mut st = self.state.lock();
        if st.status <= CL_COMPLETE as cl_int {
            return false;
        }
        st.wakers.push(waker.clone());
        true
    }

    /// The application saw the command complete (a wait, or a polled `CL_COMPLETE`): what it
    /// waited for is ordered before everything it enqueues later.
    pub fn host_saw(&self) {
        if let Some(c) = self.order.get() {
            order::host_saw(c);
        }
    }

    /// Registers `f` to be called when the status reaches `when`; when it already has,
    /// registers nothing and returns the status (for the caller to call `f` with at once).
    pub fn add_callback(&self, when: cl_int, f: EventCallback, user: UserPtr) -> Option<cl_int> {
        let mut st = self.state.lock();
        if st.status <= when {
            Some(st.status)
        } else {
            st.callbacks.push((when, f, user));
            None
        }
    }

    /// The status and the queued, submit, start and end times (ns; 0 until reached).
    pub fn times(&self) -> (cl_int, [u64; 4]) {
        let st = self.state.lock();
        (st.status, st.times)
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

/// Sets a user event's status (`clSetUserEventStatus`): commands waiting for it follow what
/// the host had waited for until now.
pub fn set_user_status(ev: &Ref<Event>, status: cl_int) {
    let _ = ev.order.set(order::host_clock());
    set_status(ev, status);
}

pub fn get_event(e: cl_event) -> Result<Ref<Event>, cl_int> {
    object::get::<Event, _>(e)
}
