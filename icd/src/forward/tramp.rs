//! Callback trampolines: the vendor calls ours with its handle; we call the application's with
//! the wrapper. Each registration boxes the application's function and user data; every such
//! callback is called once by the specification (build done, event status reached, object
//! destroyed, SVM free), so the trampoline frees the box. When the vendor refuses the
//! registration the box is freed by [`discard`].

use super::handles::{wrap_new, Kind};
use crate::types::*;
use std::ffi::{c_int, c_void};

struct Cb {
    f: usize,
    user: *mut c_void,
}

fn boxed(f: usize, user: *mut c_void) -> *mut c_void {
    Box::into_raw(Box::new(Cb { f, user })).cast()
}

/// Takes back the box a trampoline got.
///
/// # Safety
/// `ud` must come from [`boxed`] and not have been taken before.
unsafe fn take(ud: *mut c_void) -> Cb {
    // SAFETY: per the contract above.
    *unsafe { Box::from_raw(ud.cast::<Cb>()) }
}

/// Frees the box of a registration the vendor refused (`registered`: a callback was given).
pub(crate) fn discard(registered: bool, ud: *mut c_void) {
    if registered && !ud.is_null() {
        // SAFETY: with a callback given, ud is our box, and the vendor refused the call, so
        // the trampoline will never run.
        let _ = unsafe { take(ud) };
    }
}

pub type ProgramCb = Option<unsafe extern "C" fn(cl_program, *mut c_void)>;
pub type EventCb = Option<unsafe extern "C" fn(cl_event, cl_int, *mut c_void)>;
pub type MemCb = Option<unsafe extern "C" fn(cl_mem, *mut c_void)>;
pub type ContextCb = Option<unsafe extern "C" fn(cl_context, *mut c_void)>;
pub type SvmFreeCb =
    Option<unsafe extern "C" fn(cl_command_queue, cl_uint, *mut *mut c_void, *mut c_void)>;

macro_rules! two_arg_tramp {
    ($reg:ident, $tramp:ident, $ty:ty, $h:ty, $kind:expr) => {
        pub fn $reg(f: $ty, ud: *mut c_void) -> ($ty, *mut c_void) {
            match f {
                None => (None, ud),
                Some(f) => (Some($tramp), boxed(f as usize, ud)),
            }
        }
        unsafe extern "C" fn $tramp(h: $h, ud: *mut c_void) {
            // SAFETY: ud is the box made at registration; the vendor calls this once.
            let cb = unsafe { take(ud) };
            // SAFETY: cb.f is the application's function of this signature.
            let f = unsafe {
                std::mem::transmute::<usize, unsafe extern "C" fn($h, *mut c_void)>(cb.f)
            };
            let w = wrap_new($kind, h, false);
            // SAFETY: the application's callback, with the wrapper for the vendor's handle.
            unsafe { f(w, cb.user) }
        }
    };
}

two_arg_tramp!(
    program_cb,
    program_tramp,
    ProgramCb,
    cl_program,
    Kind::Program
);
two_arg_tramp!(mem_cb, mem_tramp, MemCb, cl_mem, Kind::Mem);
two_arg_tramp!(
    context_cb,
    context_tramp,
    ContextCb,
    cl_context,
    Kind::Context
);

pub(crate) fn event_cb(f: EventCb, ud: *mut c_void) -> (EventCb, *mut c_void) {
    match f {
        None => (None, ud),
        Some(f) => (Some(event_tramp), boxed(f as usize, ud)),
    }
}

unsafe extern "C" fn event_tramp(e: cl_event, status: cl_int, ud: *mut c_void) {
    // SAFETY: ud is the box made at registration; the vendor calls this once.
    let cb = unsafe { take(ud) };
    // SAFETY: cb.f is the application's event callback.
    let f = unsafe {
        std::mem::transmute::<usize, unsafe extern "C" fn(cl_event, c_int, *mut c_void)>(cb.f)
    };
    let w = wrap_new(Kind::Event, e, false);
    // SAFETY: the application's callback, with the wrapper for the vendor's event.
    unsafe { f(w, status, cb.user) }
}

pub(crate) fn svm_free_cb(f: SvmFreeCb, ud: *mut c_void) -> (SvmFreeCb, *mut c_void) {
    match f {
        None => (None, ud),
        Some(f) => (Some(svm_free_tramp), boxed(f as usize, ud)),
    }
}

unsafe extern "C" fn svm_free_tramp(
    q: cl_command_queue,
    n: cl_uint,
    ptrs: *mut *mut c_void,
    ud: *mut c_void,
) {
    // SAFETY: ud is the box made at registration; the vendor calls this once.
    let cb = unsafe { take(ud) };
    // SAFETY: cb.f is the application's SVM free callback.
    let f = unsafe {
        std::mem::transmute::<
            usize,
            unsafe extern "C" fn(cl_command_queue, cl_uint, *mut *mut c_void, *mut c_void),
        >(cb.f)
    };
    let w = wrap_new(Kind::Queue, q, false);
    // SAFETY: the application's callback, with the wrapper for the vendor's queue.
    unsafe { f(w, n, ptrs, cb.user) }
}
