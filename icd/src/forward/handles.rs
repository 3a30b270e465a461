//! Wrapper handles of forwarding mode. The ICD loader dispatches through the first word of a
//! handle, so every vendor object the application sees is a [`Wrapper`] whose first field is
//! our forwarding table; it holds the vendor's handle. A registry maps wrappers (to validate
//! what the application passes: garbage is never dereferenced) and vendor handles (so one
//! vendor object always has one wrapper).

use crate::consts::*;
use crate::gen::dispatch::IcdDispatch;
use crate::gen::forward::FORWARD;
use crate::types::*;
use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, LazyLock, OnceLock};

/// The object type behind a handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Platform,
    Device,
    Context,
    Queue,
    Mem,
    Program,
    Kernel,
    Event,
    Sampler,
}

impl Kind {
    /// The error for a handle that is not a live object of this kind.
    pub fn invalid(self) -> cl_int {
        match self {
            Kind::Platform => CL_INVALID_PLATFORM,
            Kind::Device => CL_INVALID_DEVICE,
            Kind::Context => CL_INVALID_CONTEXT,
            Kind::Queue => CL_INVALID_COMMAND_QUEUE,
            Kind::Mem => CL_INVALID_MEM_OBJECT,
            Kind::Program => CL_INVALID_PROGRAM,
            Kind::Kernel => CL_INVALID_KERNEL,
            Kind::Event => CL_INVALID_EVENT,
            Kind::Sampler => CL_INVALID_SAMPLER,
        }
    }
}

/// A kernel argument as the application set it (for launch records).
#[derive(Clone)]
pub enum ArgVal {
    /// A buffer (its wrapper).
    Mem(Arc<Wrapper>),
    /// `arg_value` NULL with a size: a `__local` buffer, or a NULL buffer (told apart with the
    /// argument's address qualifier when the launch is recorded).
    NullValue(usize),
    /// By-value bytes.
    Bytes(Vec<u8>),
}

/// What a kernel's launches need that the vendor can tell (asked once per kernel).
pub struct KernelMeta {
    pub name: String,
    pub args: Vec<ArgMeta>,
    pub source: Option<String>,
    pub il: Option<Vec<u8>>,
    pub options: String,
}

pub struct ArgMeta {
    pub name: String,
    /// `CL_KERNEL_ARG_ADDRESS_*`, when the vendor gives argument information.
    pub address: Option<u32>,
    pub access: u32,
    pub type_name: String,
    pub type_qualifier: u64,
}

/// The memory behind a forwarding handle.
#[repr(C)]
pub struct Wrapper {
    /// Read by the ICD loader: must stay the first field.
    dispatch: &'static IcdDispatch,
    pub kind: Kind,
    /// The vendor's handle.
    pub vendor: usize,
    /// Memory objects: `CL_MEM_TYPE` (0 when the vendor did not say), so images and buffers
    /// are told apart where the C type (`cl_mem`) does not.
    pub mem_type: cl_uint,
    /// Kernels: arguments set so far (only while launches are recorded).
    pub args: Mutex<Vec<Option<ArgVal>>>,
    /// Kernels: what the vendor says about the kernel, asked once.
    pub meta: OnceLock<KernelMeta>,
    /// Programs: how to rebuild the program for replay where the vendor cannot say (linked,
    /// or made from a binary); only while launches are recorded.
    pub code: Mutex<Option<Arc<super::record::ProgramCode>>>,
}

impl Wrapper {
    /// The wrapper's handle value.
    pub fn handle(self: &Arc<Self>) -> usize {
        Arc::as_ptr(self) as usize
    }
}

#[derive(Default)]
struct Registry {
    /// Wrapper address -> wrapper.
    wrappers: HashMap<usize, Arc<Wrapper>>,
    /// Vendor handle -> wrapper address.
    by_vendor: HashMap<usize, usize>,
}

static REG: LazyLock<RwLock<Registry>> = LazyLock::new(|| RwLock::new(Registry::default()));

/// The vendor handle behind `h` if it is a live wrapper of `kind`; NULL stays NULL (the vendor
/// reports it with the error its specification gives).
pub(crate) fn un<T>(kind: Kind, h: *mut T) -> Result<*mut T, cl_int> {
    if h.is_null() {
        return Ok(h);
    }
    match REG.read().wrappers.get(&(h as usize)) {
        Some(w) if w.kind == kind => Ok(w.vendor as *mut T),
        _ => Err(kind.invalid()),
    }
}

/// A memory object where the specification wants a buffer: an image (or a non-wrapper) is
/// `CL_INVALID_MEM_OBJECT`.
pub(crate) fn un_buffer<T>(h: *mut T) -> Result<*mut T, cl_int> {
    un_mem(h, |t| t == CL_MEM_OBJECT_BUFFER)
}

/// A memory object where the specification wants an image.
pub(crate) fn un_image<T>(h: *mut T) -> Result<*mut T, cl_int> {
    un_mem(h, |t| t != CL_MEM_OBJECT_BUFFER && t != CL_MEM_OBJECT_PIPE)
}

fn un_mem<T>(h: *mut T, ok: impl Fn(cl_uint) -> bool) -> Result<*mut T, cl_int> {
    if h.is_null() {
        return Ok(h);
    }
    match REG.read().wrappers.get(&(h as usize)) {
        Some(w) if w.kind == Kind::Mem && (w.mem_type == 0 || ok(w.mem_type)) => {
            Ok(w.vendor as *mut T)
        }
        _ => Err(CL_INVALID_MEM_OBJECT),
    }
}

/// The wrapper behind `h` (not NULL) if it is a live wrapper of `kind`.
pub(crate) fn get<T>(kind: Kind, h: *mut T) -> Result<Arc<Wrapper>, cl_int> {
    match REG.read().wrappers.get(&(h as usize)) {
        Some(w) if w.kind == kind => Ok(w.clone()),
        _ => Err(kind.invalid()),
    }
}

/// Any live wrapper at address `h`.
pub(crate) fn lookup(h: usize) -> Option<Arc<Wrapper>> {
    REG.read().wrappers.get(&h).cloned()
}

/// The live wrapper of vendor handle `v`.
pub(crate) fn lookup_vendor(kind: Kind, v: usize) -> Option<Arc<Wrapper>> {
    let reg = REG.read();
    let w = reg.by_vendor.get(&v).and_then(|a| reg.wrappers.get(a))?;
    (w.kind == kind).then(|| w.clone())
}

/// Whether `h` is a live forwarding wrapper.
pub(crate) fn is_wrapper<T>(h: *mut T) -> bool {
    REG.read().wrappers.contains_key(&(h as usize))
}

/// Translates the application's array `(ptr, n)` of wrappers; `err` for a bad element or a
/// NULL array with `n > 0` (the vendor reports a non-NULL array with `n == 0` itself).
pub(crate) fn un_list<T>(
    kind: Kind,
    err: cl_int,
    n: cl_uint,
    ptr: *const *mut T,
) -> Result<Vec<*mut T>, cl_int> {
    if ptr.is_null() || n == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: the application passes an array of n handles (spec of every such parameter).
    let hs = unsafe { std::slice::from_raw_parts(ptr, n as usize) };
    let reg = REG.read();
    hs.iter()
        .map(|&h| match reg.wrappers.get(&(h as usize)) {
            Some(w) if w.kind == kind => Ok(w.vendor as *mut T),
            _ if h.is_null() => Ok(h),
            _ => Err(err),
        })
        .collect()
}

/// What to pass for a translated array: NULL when the application passed NULL.
pub(crate) fn list_ptr<T, U>(v: &[T], orig: *const U) -> *const T {
    if orig.is_null() {
        std::ptr::null()
    } else {
        v.as_ptr()
    }
}

/// The wrapper for vendor handle `v` (NULL stays NULL). `fresh`: the vendor just created the
/// object, so a wrapper still mapped to that address belongs to a dead object it reused and is
/// retired; otherwise the existing wrapper is returned.
pub(crate) fn wrap_new<T>(kind: Kind, v: *mut T, fresh: bool) -> *mut T {
    if v.is_null() {
        return v;
    }
    let vendor = v as usize;
    if !fresh {
        let reg = REG.read();
        if let Some(w) = reg.by_vendor.get(&vendor).and_then(|a| reg.wrappers.get(a)) {
            if w.kind == kind {
                return w.handle() as *mut T;
            }
        }
    }
    // Asked before taking the registry's lock.
    let mem_type = if kind == Kind::Mem {
        vendor_info::<cl_uint>(Kind::Mem, vendor, CL_MEM_TYPE).unwrap_or(0)
    } else {
        0
    };
    let mut reg = REG.write();
    if let Some(a) = reg.by_vendor.get(&vendor).copied() {
        match reg.wrappers.get(&a) {
            Some(w) if !fresh && w.kind == kind => return a as *mut T,
            _ => {
                reg.wrappers.remove(&a);
            }
        }
    }
    let w = Arc::new(Wrapper {
        dispatch: &FORWARD,
        kind,
        vendor,
        mem_type,
        args: Mutex::new(Vec::new()),
        meta: OnceLock::new(),
        code: Mutex::new(None),
    });
    let a = w.handle();
    reg.wrappers.insert(a, w);
    reg.by_vendor.insert(vendor, a);
    a as *mut T
}

/// Wraps the handle an out-parameter received.
pub(crate) fn wrap_out<T>(kind: Kind, p: *mut *mut T, fresh: bool) {
    if !p.is_null() {
        // SAFETY: a non-NULL out-parameter the vendor just wrote a handle to.
        unsafe { p.write(wrap_new(kind, p.read(), fresh)) };
    }
}

/// Wraps the first `n` handles of an out-array.
pub(crate) fn wrap_out_array<T>(kind: Kind, p: *mut *mut T, n: cl_uint, fresh: bool) {
    if p.is_null() {
        return;
    }
    for i in 0..n as usize {
        // SAFETY: the vendor wrote n handles into the application's array of at least n.
        wrap_out(kind, unsafe { p.add(i) }, fresh);
    }
}

/// Retires a wrapper: its handle is invalid from now on.
pub(crate) fn forget(w: &Arc<Wrapper>) {
    let mut reg = REG.write();
    let a = w.handle();
    reg.wrappers.remove(&a);
    if reg.by_vendor.get(&w.vendor) == Some(&a) {
        reg.by_vendor.remove(&w.vendor);
    }
}

/// A `clGet*Info` of the vendor, with the handle as an untyped pointer.
pub type InfoFn =
    unsafe extern "C" fn(*mut c_void, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;

/// The vendor's `clGet*Info` for objects of `kind`.
pub(crate) fn info_fn(kind: Kind) -> Result<InfoFn, cl_int> {
    use std::mem::offset_of;
    let off = match kind {
        Kind::Platform => offset_of!(IcdDispatch, clGetPlatformInfo),
        Kind::Device => offset_of!(IcdDispatch, clGetDeviceInfo),
        Kind::Context => offset_of!(IcdDispatch, clGetContextInfo),
        Kind::Queue => offset_of!(IcdDispatch, clGetCommandQueueInfo),
        Kind::Mem => offset_of!(IcdDispatch, clGetMemObjectInfo),
        Kind::Program => offset_of!(IcdDispatch, clGetProgramInfo),
        Kind::Kernel => offset_of!(IcdDispatch, clGetKernelInfo),
        Kind::Event => offset_of!(IcdDispatch, clGetEventInfo),
        Kind::Sampler => offset_of!(IcdDispatch, clGetSamplerInfo),
    };
    let w = slot_word(off)?;
    // SAFETY: a non-NULL clGet*Info slot: (handle, cl_uint, size_t, void*, size_t*) -> cl_int,
    // and every handle type is a pointer.
    Ok(unsafe { std::mem::transmute::<usize, InfoFn>(w) })
}

/// A fixed-size answer of the vendor's `clGet*Info`.
pub(crate) fn vendor_info<T: Copy + Default>(
    kind: Kind,
    v: usize,
    param: cl_uint,
) -> Result<T, cl_int> {
    let f = info_fn(kind)?;
    let mut x = T::default();
    // SAFETY: the vendor writes at most size_of::<T>() bytes into x.
    let r = unsafe {
        f(
            v as *mut c_void,
            param,
            std::mem::size_of::<T>(),
            (&mut x as *mut T).cast(),
            std::ptr::null_mut(),
        )
    };
    if r == CL_SUCCESS {
        Ok(x)
    } else {
        Err(r)
    }
}

/// A variable-size answer of the vendor's `clGet*Info` (asks for the size first).
pub(crate) fn vendor_info_bytes(kind: Kind, v: usize, param: cl_uint) -> Result<Vec<u8>, cl_int> {
    let f = info_fn(kind)?;
    let mut n = 0usize;
    // SAFETY: size query: no value pointer.
    let r = unsafe { f(v as *mut c_void, param, 0, std::ptr::null_mut(), &mut n) };
    if r != CL_SUCCESS {
        return Err(r);
    }
    let mut b = vec![0u8; n];
    // SAFETY: b has the n bytes the vendor asked for.
    let r = unsafe {
        f(
            v as *mut c_void,
            param,
            n,
            b.as_mut_ptr().cast(),
            std::ptr::null_mut(),
        )
    };
    if r == CL_SUCCESS {
        Ok(b)
    } else {
        Err(r)
    }
}

fn ref_count_param(kind: Kind) -> cl_uint {
    match kind {
        Kind::Platform | Kind::Device => CL_DEVICE_REFERENCE_COUNT,
        Kind::Context => CL_CONTEXT_REFERENCE_COUNT,
        Kind::Queue => CL_QUEUE_REFERENCE_COUNT,
        Kind::Mem => CL_MEM_REFERENCE_COUNT,
        Kind::Program => CL_PROGRAM_REFERENCE_COUNT,
        Kind::Kernel => CL_KERNEL_REFERENCE_COUNT,
        Kind::Event => CL_EVENT_REFERENCE_COUNT,
        Kind::Sampler => CL_SAMPLER_REFERENCE_COUNT,
    }
}

/// `clRelease*`: releases the vendor object and retires the wrapper when that was the last
/// reference (the count is asked before the release; devices keep their wrappers, root devices
/// always report 1).
pub(crate) fn release<T>(
    kind: Kind,
    h: *mut T,
    f: impl FnOnce(*mut T) -> cl_int,
) -> Result<cl_int, cl_int> {
    let w = get(kind, h)?;
    let last = kind != Kind::Device
        && vendor_info::<cl_uint>(kind, w.vendor, ref_count_param(kind)) == Ok(1);
    let r = f(w.vendor as *mut T);
    if r == CL_SUCCESS && last {
        forget(&w);
    }
    Ok(r)
}

/// The vendor's dispatch table (set once the vendor is loaded).
static TABLE: OnceLock<usize> = OnceLock::new();

pub(crate) fn set_table(t: usize) {
    let _ = TABLE.set(t);
}

/// The word at byte offset `off` of the vendor's dispatch table; a NULL slot (or no vendor) is
/// `CL_INVALID_OPERATION`.
pub(crate) fn slot_word(off: usize) -> Result<usize, cl_int> {
    let t = *TABLE.get().ok_or(CL_INVALID_OPERATION)?;
    // SAFETY: t is the dispatch table of a vendor handle (cl_icd.h layout, which IcdDispatch
    // follows field for field), and off is the offset of one of its fields.
    let w = unsafe { ((t + off) as *const usize).read() };
    if w == 0 {
        Err(CL_INVALID_OPERATION)
    } else {
        Ok(w)
    }
}

/// The vendor's function of one slot, typed as the slot: `vendor_slot!(clFinish)?`.
macro_rules! vendor_slot {
    ($f:ident) => {
        $crate::forward::handles::slot_word(std::mem::offset_of!(
            $crate::gen::dispatch::IcdDispatch,
            $f
        ))
        .map(|w| {
            // SAFETY: a non-NULL word of the vendor's table at this slot's offset is a function
            // of this slot's type (cl_icd.h).
            unsafe {
                $crate::forward::handles::cast_slot(
                    |d: &$crate::gen::dispatch::IcdDispatch| d.$f,
                    w,
                )
            }
        })
    };
}
pub(crate) use vendor_slot;

/// Reinterprets a table word as the function type of the field `_field` reads.
///
/// # Safety
/// `w` must be a function of type `F`.
pub unsafe fn cast_slot<F: Copy>(_field: fn(&IcdDispatch) -> F, w: usize) -> F {
    // SAFETY: F is a function pointer type (the size of usize); the caller vouches for w.
    unsafe { std::mem::transmute_copy::<usize, F>(&w) }
}

/// Runs a forwarding entry point: our errors and the vendor's status both come back as the
/// status code; panics stop here.
pub(crate) fn forward(name: &'static str, f: impl FnOnce() -> Result<cl_int, cl_int>) -> cl_int {
    crate::api::entry::call(name, || match f()? {
        CL_SUCCESS => Ok(()),
        e => Err(e),
    })
}

/// `const cl_context_properties *` with the `CL_CONTEXT_PLATFORM` value translated.
pub(crate) fn context_props(
    p: *const cl_context_properties,
) -> Result<Vec<cl_context_properties>, cl_int> {
    let mut out = Vec::new();
    for (name, value) in crate::api::info::properties(p)? {
        let value = if name == CL_CONTEXT_PLATFORM as cl_context_properties {
            un(Kind::Platform, value as *mut c_void)? as cl_context_properties
        } else {
            value
        };
        out.push(name);
        out.push(value);
    }
    out.push(0);
    Ok(out)
}

/// `const cl_image_desc *` with its buffer translated.
pub(crate) fn translate_image_desc(
    p: *const cl_image_desc,
) -> Result<Option<cl_image_desc>, cl_int> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: a non-NULL image descriptor the application passes (spec).
    let mut d = unsafe { p.read() };
    d.buffer = un(Kind::Mem, d.buffer).map_err(|_| CL_INVALID_IMAGE_DESCRIPTOR)?;
    Ok(Some(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_vendor_handle_has_one_wrapper_and_garbage_is_refused() {
        let v1 = 0x1000_0010usize as cl_context;
        let a = wrap_new(Kind::Context, v1, true);
        assert_ne!(
            a, v1,
            "the application gets our wrapper, not the vendor handle"
        );
        assert_eq!(wrap_new(Kind::Context, v1, false), a, "stable identity");
        assert_eq!(un(Kind::Context, a), Ok(v1));
        // Wrong type, garbage, and the vendor's own handle are all refused.
        assert_eq!(
            un(Kind::Queue, a.cast::<_cl_command_queue>()),
            Err(CL_INVALID_COMMAND_QUEUE)
        );
        assert_eq!(
            un(Kind::Context, 0xdead_beefusize as cl_context),
            Err(CL_INVALID_CONTEXT)
        );
        assert_eq!(un(Kind::Context, v1), Err(CL_INVALID_CONTEXT));
        assert_eq!(
            un(Kind::Context, std::ptr::null_mut::<_cl_context>()),
            Ok(std::ptr::null_mut())
        );
        // The loader reads our table through the first word.
        // SAFETY: a is a live wrapper, whose first field is the dispatch pointer.
        let first = unsafe { (a as *const usize).read() };
        assert_eq!(first, &FORWARD as *const IcdDispatch as usize);

        // A fresh object at a reused vendor address gets a new wrapper; the old one is dead.
        let old = get(Kind::Context, a).unwrap(); // keeps its memory, so addresses differ
        let b = wrap_new(Kind::Context, v1, true);
        assert_ne!(a, b);
        assert_eq!(un(Kind::Context, a), Err(CL_INVALID_CONTEXT));
        assert_eq!(un(Kind::Context, b), Ok(v1));
        drop(old);
        let w = get(Kind::Context, b).unwrap();
        forget(&w);
        assert_eq!(un(Kind::Context, b), Err(CL_INVALID_CONTEXT));
        assert!(!is_wrapper(b));
    }

    #[test]
    fn lists_translate_every_element() {
        let e1 = wrap_new(Kind::Event, 0x2000_0010usize as cl_event, true);
        let e2 = wrap_new(Kind::Event, 0x2000_0020usize as cl_event, true);
        let list = [e1, e2];
        let v = un_list(Kind::Event, CL_INVALID_EVENT_WAIT_LIST, 2, list.as_ptr()).unwrap();
        assert_eq!(
            v,
            vec![0x2000_0010usize as cl_event, 0x2000_0020usize as cl_event]
        );
        let bad = [e1, 0x77usize as cl_event];
        assert_eq!(
            un_list(Kind::Event, CL_INVALID_EVENT_WAIT_LIST, 2, bad.as_ptr()),
            Err(CL_INVALID_EVENT_WAIT_LIST)
        );
        assert!(list_ptr(&v, std::ptr::null::<cl_event>()).is_null());
        let mut out = [0x2000_0020usize as cl_event, 0x2000_0030usize as cl_event];
        wrap_out_array(Kind::Event, out.as_mut_ptr(), 2, false);
        assert_eq!(out[0], e2, "known vendor handles keep their wrapper");
        assert_eq!(un(Kind::Event, out[1]), Ok(0x2000_0030usize as cl_event));
    }

    #[test]
    fn context_properties_carry_the_vendor_platform() {
        let p = wrap_new(Kind::Platform, 0x3000_0010usize as cl_platform_id, true);
        let props = [
            CL_CONTEXT_PLATFORM as cl_context_properties,
            p as cl_context_properties,
            0,
        ];
        assert_eq!(
            context_props(props.as_ptr()),
            Ok(vec![
                CL_CONTEXT_PLATFORM as cl_context_properties,
                0x3000_0010,
                0
            ])
        );
        let bad = [CL_CONTEXT_PLATFORM as cl_context_properties, 0x99, 0];
        assert_eq!(context_props(bad.as_ptr()), Err(CL_INVALID_PLATFORM));
    }
}
