//! Contexts.

use crate::consts::*;
use crate::core::object::{self, ClObject, Ref};
use crate::core::UserPtr;
use crate::types::*;
use parking_lot::Mutex;
use std::ffi::{c_char, c_void};

pub type NotifyFn = unsafe extern "C" fn(*const c_char, *const c_void, usize, *mut c_void);
pub type ContextDestructorFn = unsafe extern "C" fn(cl_context, *mut c_void);

pub struct Context {
    /// The property list as the application passed it, with its terminating 0 (empty: none).
    pub properties: Vec<cl_context_properties>,
    pub notify: Option<(NotifyFn, UserPtr)>,
    destructors: Mutex<Vec<(ContextDestructorFn, UserPtr)>>,
}

impl ClObject for Context {
    const TAG: u32 = 0x5C1_0003;
    const INVALID: i32 = CL_INVALID_CONTEXT;
    type Handle = cl_context;
    fn destroyed(&self, handle: *mut c_void) {
        let cbs = std::mem::take(&mut *self.destructors.lock());
        for (f, user) in cbs.into_iter().rev() {
            // SAFETY: an application callback registered for this context, called once.
            unsafe { f(handle.cast(), user.0) };
        }
    }
}

impl Context {
    /// A new context with the property list as the application passed it and its
    /// notification callback.
    pub fn new(
        properties: Vec<cl_context_properties>,
        notify: Option<(NotifyFn, UserPtr)>,
    ) -> Ref<Context> {
        object::create(Context {
            properties,
            notify,
            destructors: Mutex::new(Vec::new()),
        })
    }

    /// Registers a callback to run when the context is destroyed (the last registered first).
    pub fn add_destructor(&self, f: ContextDestructorFn, user: UserPtr) {
        self.destructors.lock().push((f, user));
    }

    /// Reports an error through the context's notification callback.
    pub fn notify(&self, text: &str) {
        if let Some((f, user)) = self.notify {
            let mut s = text.as_bytes().to_vec();
            s.push(0);
            // SAFETY: the application's callback with a NUL-terminated string.
            unsafe { f(s.as_ptr().cast(), std::ptr::null(), 0, user.0) };
        }
    }
}

pub fn get(c: cl_context) -> Result<Ref<Context>, cl_int> {
    object::get::<Context, _>(c)
}
