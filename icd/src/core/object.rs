//! The object model: every handle is the address of an [`Obj`] inside an `Arc`; the first
//! field is the dispatch table pointer the ICD loader reads, the second a type tag. A global
//! registry of live addresses means a garbage handle is never dereferenced, and it holds weak
//! references, so an object whose last reference is being dropped (an application's double
//! release racing with a query on another thread) is never handed out again.

use crate::gen::dispatch::{IcdDispatch, DISPATCH};
use parking_lot::Mutex;
use std::any::Any;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::Ordering;
use std::sync::{Arc, LazyLock, Weak};

/// A ShadowCL object type.
pub trait ClObject: Send + Sync + Sized + 'static {
    /// Type tag stored in the handle and the registry.
    const TAG: u32;
    /// Error for a handle that is not a live object of this type.
    const INVALID: i32;
    /// The C handle type.
    type Handle;
    /// Called once when the last reference goes, with the handle value (destructor callbacks).
    fn destroyed(&self, _handle: *mut c_void) {}
    /// Called when the application's reference count goes from 0 to 1 (`true`: the handle is
    /// handed out or retained again) and from 1 to 0 (`false`: its last `clRelease*`), while
    /// ShadowCL's own references may keep the object alive longer.
    fn app_held(&self, _held: bool) {}
}

/// The memory behind a handle.
#[repr(C)]
pub struct Obj<T: ClObject> {
    dispatch: &'static IcdDispatch,
    tag: u32,
    /// References the application holds (`CL_*_REFERENCE_COUNT`); ShadowCL's own references
    /// (a queue's context, a command's buffers) are further `Arc` counts. A release beyond
    /// this count is refused instead of freeing an object still in use.
    app_refs: std::sync::atomic::AtomicU32,
    pub inner: T,
}

impl<T: ClObject> std::ops::Deref for Obj<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

/// A counted reference to an object (what handles stand for).
pub type Ref<T> = Arc<Obj<T>>;

/// Live objects by address: type tag and a weak reference (upgraded only while the object
/// has a strong reference left).
type Live = HashMap<usize, (u32, Weak<dyn Any + Send + Sync>)>;

static LIVE: LazyLock<Mutex<Live>> = LazyLock::new(|| Mutex::new(HashMap::new()));

impl<T: ClObject> Obj<T> {
    /// A static object (platform, device): lives forever, never registered.
    pub const fn new_static(tag: u32, inner: T) -> Obj<T> {
        Obj {
            dispatch: &DISPATCH,
            tag,
            app_refs: std::sync::atomic::AtomicU32::new(1),
            inner,
        }
    }
}

impl<T: ClObject> Drop for Obj<T> {
    fn drop(&mut self) {
        let addr = self as *const Obj<T> as usize;
        LIVE.lock().remove(&addr);
        self.inner.destroyed(addr as *mut c_void);
    }
}

/// Creates an object and registers its address.
pub fn create<T: ClObject>(inner: T) -> Ref<T> {
    let a = Arc::new(Obj {
        dispatch: &DISPATCH,
        tag: T::TAG,
        app_refs: std::sync::atomic::AtomicU32::new(0),
        inner,
    });
    let weak: Weak<dyn Any + Send + Sync> = Arc::downgrade(&a) as _;
    LIVE.lock().insert(Arc::as_ptr(&a) as usize, (T::TAG, weak));
    a
}

/// The handle of an object (no reference count change).
pub fn handle<T: ClObject>(r: &Ref<T>) -> T::Handle
where
    T::Handle: From<RawHandle>,
{
    RawHandle(Arc::as_ptr(r) as *mut c_void).into()
}

/// Hands a reference to the application: the handle now owns one count.
pub fn into_handle<T: ClObject>(r: Ref<T>) -> T::Handle
where
    T::Handle: From<RawHandle>,
{
    if r.app_refs.fetch_add(1, Ordering::SeqCst) == 0 {
        r.inner.app_held(true);
    }
    RawHandle(Arc::into_raw(r) as *mut c_void).into()
}

/// An untyped handle value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawHandle(pub *mut c_void);

macro_rules! handle_conv {
    ($($h:ty),*) => {$(
        impl From<RawHandle> for $h {
            fn from(r: RawHandle) -> $h {
                r.0.cast()
            }
        }
    )*};
}
use crate::types::*;
handle_conv!(
    cl_context,
    cl_command_queue,
    cl_mem,
    cl_program,
    cl_kernel,
    cl_event,
    cl_sampler
);

/// Validates a handle and returns a new counted reference to its object.
pub fn get<T: ClObject, H>(h: *mut H) -> Result<Ref<T>, i32> {
    let addr = h as usize;
    if addr == 0 {
        return Err(T::INVALID);
    }
    let weak = match LIVE.lock().get(&addr) {
        Some((tag, w)) if *tag == T::TAG => w.clone(),
        _ => return Err(T::INVALID),
    };
    // An object whose count already reached zero is being destroyed: upgrading fails, where
    // raising the count would hand out freed memory.
    let any = weak.upgrade().ok_or(T::INVALID)?;
    any.downcast::<Obj<T>>().map_err(|_| T::INVALID)
}

/// Type tag of a live handle, if it is one of ours.
#[cfg(test)]
pub fn tag_of<H>(h: *mut H) -> Option<u32> {
    LIVE.lock().get(&(h as usize)).map(|(tag, _)| *tag)
}

/// `clRetain*`.
pub fn retain<T: ClObject, H>(h: *mut H) -> Result<(), i32> {
    let r = get::<T, H>(h)?;
    if r.app_refs.fetch_add(1, Ordering::SeqCst) == 0 {
        r.inner.app_held(true);
    }
    std::mem::forget(r);
    Ok(())
}

/// `clRelease*`.
pub fn release<T: ClObject, H>(h: *mut H) -> Result<(), i32> {
    let r = get::<T, H>(h)?;
    let took = r
        .app_refs
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
    match took {
        // More releases than the application's references: refuse, the object may still be
        // used by commands or other objects.
        Err(_) => return Err(T::INVALID),
        Ok(1) => r.inner.app_held(false),
        Ok(_) => {}
    }
    // SAFETY: the handle was validated and holds the count the application got from
    // `into_handle`/`retain`; `r` keeps the object alive until it is dropped below.
    unsafe { Arc::decrement_strong_count(Arc::as_ptr(&r)) };
    drop(r);
    Ok(())
}

/// The reference count reported by `CL_*_REFERENCE_COUNT`: the application's references.
pub fn ref_count<T: ClObject>(r: &Ref<T>) -> u32 {
    r.app_refs.load(Ordering::SeqCst)
}

/// Checks that `h` is the static object `s` (platform, device).
pub fn is_static<T: ClObject, H>(h: *mut H, s: &'static Obj<T>) -> bool {
    std::ptr::eq(h as *const Obj<T>, s as *const Obj<T>) && s.tag != 0
}

/// Address of a static object as a handle.
pub fn static_handle<T: ClObject, H>(s: &'static Obj<T>) -> *mut H {
    s as *const Obj<T> as *mut H
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consts::*;
    use crate::gen::dispatch::DISPATCH;

    #[test]
    fn dispatch_table_matches_the_header_layout() {
        // 149 function pointers in cl_icd.h's `struct _cl_icd_dispatch`, none of them NULL
        // (Rust function pointers cannot be).
        assert_eq!(
            std::mem::size_of::<IcdDispatch>(),
            149 * std::mem::size_of::<usize>()
        );
        let words: &[usize; 149] =
            // SAFETY: IcdDispatch is #[repr(C)] with 149 pointer-sized fields (asserted above).
            unsafe { &*(&DISPATCH as *const IcdDispatch).cast::<[usize; 149]>() };
        assert!(words.iter().all(|&w| w != 0));
    }

    #[test]
    fn unsupported_slots_return_the_documented_errors() {
        let mut err = 0;
        // SAFETY: the stubs ignore their arguments except errcode_ret.
        unsafe {
            let m =
                (DISPATCH.clCreatePipe)(std::ptr::null_mut(), 0, 4, 1, std::ptr::null(), &mut err);
            assert!(m.is_null());
            assert_eq!(err, CL_INVALID_OPERATION);
            // Images are real now: a NULL context is the error, not the feature.
            let m = (DISPATCH.clCreateImage2D)(
                std::ptr::null_mut(),
                0,
                std::ptr::null(),
                1,
                1,
                0,
                std::ptr::null_mut(),
                &mut err,
            );
            assert!(m.is_null());
            assert_eq!(err, CL_INVALID_CONTEXT);
            let r = (DISPATCH.clGetGLObjectInfo)(
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            );
            assert_eq!(r, CL_INVALID_GL_OBJECT);
            let r = (DISPATCH.clEnqueueNativeKernel)(
                std::ptr::null_mut(),
                None,
                std::ptr::null_mut(),
                0,
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            );
            assert_eq!(r, CL_INVALID_OPERATION);
            assert!((DISPATCH.clSVMAlloc)(std::ptr::null_mut(), 0, 64, 0).is_null());
        }
    }

    #[test]
    fn garbage_and_wrong_type_handles_are_rejected_without_dereferencing() {
        use crate::core::context::Context;
        use crate::core::event::Event;
        use crate::core::queue::Queue;
        let bogus = [0usize, 8, 0xdead_beef, usize::MAX & !7];
        for b in bogus {
            let h = b as *mut u8;
            assert_eq!(get::<Context, _>(h).err(), Some(CL_INVALID_CONTEXT));
            assert_eq!(get::<Queue, _>(h).err(), Some(CL_INVALID_COMMAND_QUEUE));
            assert_eq!(get::<Event, _>(h).err(), Some(CL_INVALID_EVENT));
            assert_eq!(release::<Event, _>(h), Err(CL_INVALID_EVENT));
        }
        let c = Context::new(Vec::new(), None);
        let h: cl_context = handle(&c);
        assert_eq!(tag_of(h), Some(Context::TAG));
        assert!(get::<Context, _>(h).is_ok());
        assert_eq!(get::<Queue, _>(h).err(), Some(CL_INVALID_COMMAND_QUEUE));
        // Internal references do not count as the application's.
        let app: cl_context = into_handle(c.clone());
        assert_eq!(app, h);
        assert_eq!(ref_count(&c), 1);
        assert_eq!(release::<Context, _>(h), Ok(()));
        assert_eq!(release::<Context, _>(h), Err(CL_INVALID_CONTEXT));
        assert!(get::<Context, _>(h).is_ok(), "still alive through `c`");
        drop(c);
        assert_eq!(tag_of(h), None);
        assert_eq!(get::<Context, _>(h).err(), Some(CL_INVALID_CONTEXT));
    }

    /// A test object type (tag unused by the real ones).
    struct Probe(std::sync::atomic::AtomicU64);
    impl ClObject for Probe {
        const TAG: u32 = 0x7e57;
        const INVALID: i32 = CL_INVALID_VALUE;
        type Handle = cl_mem;
    }

    /// Releases racing with queries and retains on other threads, double releases included:
    /// an object is never handed out after its count reached zero.
    #[test]
    fn concurrent_release_and_query_never_resurrect_an_object() {
        for _ in 0..2000 {
            let h = into_handle(create(Probe(std::sync::atomic::AtomicU64::new(7))));
            let addr = h as usize;
            std::thread::scope(|s| {
                s.spawn(move || {
                    // The application's release, then a double release (refused unless the
                    // other thread's retain came in between).
                    let _ = release::<Probe, c_void>(addr as *mut c_void);
                    let _ = release::<Probe, c_void>(addr as *mut c_void);
                });
                s.spawn(move || {
                    for _ in 0..50 {
                        if let Ok(r) = get::<Probe, c_void>(addr as *mut c_void) {
                            assert_eq!(r.0.load(Ordering::SeqCst), 7);
                        }
                        if retain::<Probe, c_void>(addr as *mut c_void).is_ok() {
                            let _ = release::<Probe, c_void>(addr as *mut c_void);
                        }
                    }
                });
            });
            // Either every reference went, or the other thread's retain kept one.
            if let Ok(r) = get::<Probe, c_void>(addr as *mut c_void) {
                assert_eq!(ref_count(&r), 1);
                drop(r);
                release::<Probe, c_void>(addr as *mut c_void).unwrap();
            }
            assert!(get::<Probe, c_void>(addr as *mut c_void).is_err());
        }
        // Single-threaded: a double release is refused, not a second free.
        let h = into_handle(create(Probe(std::sync::atomic::AtomicU64::new(1))));
        assert!(release::<Probe, c_void>(h.cast()).is_ok());
        assert!(release::<Probe, c_void>(h.cast()).is_err());
    }
}
