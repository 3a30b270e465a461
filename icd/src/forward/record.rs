//! Launch records in forwarding mode: what the vendor can tell about a kernel is asked once
//! ([`KernelMeta`]); argument values are what `clSetKernelArg` saw; buffer contents are read
//! back from the vendor (reads queued after the launch's wait list, which the launch then waits
//! for, only when `SHADOWCL_CAPTURE_DATA` asks for contents).

use super::handles::*;
use crate::consts::*;
use crate::core::settings::settings;
use crate::types::*;
use parking_lot::Mutex;
use shadowcl_capture::{
    AddressQualifier, ArgData, ArgInput, BufferArg, Contents, DataMode, LaunchInput, ProgramInput,
    Recorder,
};
use shadowcl_interpreter::{ImageDesc, ImageDim};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, LazyLock};

pub(crate) fn recorder() -> Option<&'static Recorder> {
    crate::core::launch::recorder()
}

fn text(b: Vec<u8>) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

type ArgInfoFn = unsafe extern "C" fn(
    cl_kernel,
    cl_uint,
    cl_kernel_arg_info,
    usize,
    *mut c_void,
    *mut usize,
) -> cl_int;

fn arg_info_bytes(f: ArgInfoFn, k: usize, i: cl_uint, param: cl_uint) -> Option<Vec<u8>> {
    let mut n = 0usize;
    // SAFETY: size query of the vendor's clGetKernelArgInfo.
    let r = unsafe { f(k as cl_kernel, i, param, 0, std::ptr::null_mut(), &mut n) };
    if r != CL_SUCCESS {
        return None;
    }
    let mut b = vec![0u8; n];
    // SAFETY: b has the n bytes asked for.
    let r = unsafe {
        f(
            k as cl_kernel,
            i,
            param,
            n,
            b.as_mut_ptr().cast(),
            std::ptr::null_mut(),
        )
    };
    (r == CL_SUCCESS).then_some(b)
}

fn word<T: Copy + Default>(b: Option<Vec<u8>>) -> Option<T> {
    let b = b?;
    (b.len() >= std::mem::size_of::<T>()).then(|| {
        // SAFETY: b holds at least size_of::<T>() bytes of a plain integer answer.
        unsafe { b.as_ptr().cast::<T>().read_unaligned() }
    })
}

fn query_meta(k: usize) -> KernelMeta {
    let name = vendor_info_bytes(Kind::Kernel, k, CL_KERNEL_FUNCTION_NAME)
        .map(text)
        .unwrap_or_default();
    let n = vendor_info::<cl_uint>(Kind::Kernel, k, CL_KERNEL_NUM_ARGS).unwrap_or(0);
    let arg_info: Option<ArgInfoFn> = vendor_slot!(clGetKernelArgInfo).ok();
    let args = (0..n)
        .map(|i| {
            let q = |p| arg_info.and_then(|f| arg_info_bytes(f, k, i, p));
            ArgMeta {
                name: q(CL_KERNEL_ARG_NAME)
                    .map(text)
                    .unwrap_or_else(|| format!("arg{i}")),
                address: word::<cl_uint>(q(CL_KERNEL_ARG_ADDRESS_QUALIFIER)),
                access: word::<cl_uint>(q(CL_KERNEL_ARG_ACCESS_QUALIFIER))
                    .unwrap_or(CL_KERNEL_ARG_ACCESS_NONE),
                type_name: q(CL_KERNEL_ARG_TYPE_NAME).map(text).unwrap_or_default(),
                type_qualifier: word::<u64>(q(CL_KERNEL_ARG_TYPE_QUALIFIER)).unwrap_or(0),
            }
        })
        .collect();
    let program = vendor_info::<usize>(Kind::Kernel, k, CL_KERNEL_PROGRAM).unwrap_or(0);
    let code = program_code(program);
    let (source, il, options) = match code.as_deref() {
        Some(c) => (c.source.clone(), c.spirv.clone(), c.options.clone()),
        None => (None, None, String::new()),
    };
    KernelMeta {
        name,
        args,
        source,
        il,
        options,
    }
}

fn build_options(program: usize, device: usize) -> Option<String> {
    let f = vendor_slot!(clGetProgramBuildInfo).ok()?;
    let mut n = 0usize;
    let (p, d) = (program as cl_program, device as cl_device_id);
    // SAFETY: size query of the vendor's clGetProgramBuildInfo.
    let r = unsafe {
        f(
            p,
            d,
            CL_PROGRAM_BUILD_OPTIONS,
            0,
            std::ptr::null_mut(),
            &mut n,
        )
    };
    if r != CL_SUCCESS {
        return None;
    }
    let mut b = vec![0u8; n];
    // SAFETY: b has the n bytes asked for.
    let r = unsafe {
        f(
            p,
            d,
            CL_PROGRAM_BUILD_OPTIONS,
            n,
            b.as_mut_ptr().cast(),
            std::ptr::null_mut(),
        )
    };
    // The option forwarding adds is not the application's.
    (r == CL_SUCCESS).then(|| text(b).replace(super::special::ARG_INFO_OPTION, ""))
}

/// How to rebuild a program for replay where the vendor cannot say (a linked program, one
/// made from a binary): ShadowCL compiles and links the application's sources itself, only
/// while launches are recorded.
pub struct ProgramCode {
    source: Option<String>,
    spirv: Option<Vec<u8>>,
    /// SPIR LLVM bitcode of a compiled object or library, for the links that take it.
    bitcode: Option<Vec<u8>>,
    options: String,
}

fn keep(w: &Wrapper, code: ProgramCode) {
    *w.code.lock() = Some(Arc::new(code));
}

/// After a successful clCompileProgram: the same compile by ShadowCL's compiler, so a link of
/// this object can be rebuilt. `headers`: (include name, vendor program).
pub(crate) fn compiled(program: &Wrapper, options: &str, headers: &[(String, usize)]) {
    if recorder().is_none() {
        return;
    }
    let v = program.vendor;
    let source = vendor_info_bytes(Kind::Program, v, CL_PROGRAM_SOURCE)
        .map(text)
        .ok()
        .filter(|s| !s.is_empty());
    let bitcode = match &source {
        Some(src) => {
            let headers = headers
                .iter()
                .map(|(name, h)| {
                    let text = vendor_info_bytes(Kind::Program, *h, CL_PROGRAM_SOURCE)
                        .map(text)
                        .unwrap_or_default();
                    (name.clone(), text)
                })
                .collect();
            let req = crate::compiler::CompileRequest {
                sources: vec![src.clone()],
                options: options.to_string(),
                headers,
            };
            settings().compiler.compile(&req).map(|c| c.bitcode)
        }
        None => match vendor_info_bytes(Kind::Program, v, CL_PROGRAM_IL) {
            Ok(il) if !il.is_empty() => settings().compiler.spirv_to_bitcode(&il),
            _ => return,
        },
    };
    match bitcode {
        Ok(b) => keep(
            program,
            ProgramCode {
                source,
                spirv: None,
                bitcode: Some(b),
                options: options.to_string(),
            },
        ),
        Err(e) => {
            tracing::warn!("capture: ShadowCL could not compile a program the vendor compiled: {e}")
        }
    }
}

/// After a successful clLinkProgram: the same link of the inputs' bitcode, so launches of the
/// linked program record its SPIR-V.
pub(crate) fn linked(
    program: cl_program,
    n: cl_uint,
    inputs: *const cl_program,
    options: *const std::ffi::c_char,
) {
    if recorder().is_none() || inputs.is_null() {
        return;
    }
    let Ok(w) = get(Kind::Program, program) else {
        return;
    };
    // SAFETY: the application's array of n programs, which the vendor just accepted.
    let inputs = unsafe { std::slice::from_raw_parts(inputs, n as usize) };
    let bitcodes: Option<Vec<Vec<u8>>> = inputs
        .iter()
        .map(|&p| {
            let i = get(Kind::Program, p).ok()?;
            let code = i.code.lock().clone()?;
            code.bitcode.clone()
        })
        .collect();
    let Some(bitcodes) = bitcodes else {
        tracing::info!("capture: a linked program's inputs were not all compiled while recording");
        return;
    };
    let options = crate::api::info::cstr(options).unwrap_or_default();
    match settings().compiler.link(&bitcodes, &options) {
        Ok(c) => keep(
            &w,
            ProgramCode {
                source: None,
                spirv: Some(c.spirv),
                bitcode: Some(c.bitcode),
                options: String::new(),
            },
        ),
        Err(e) => tracing::warn!("capture: ShadowCL could not link what the vendor linked: {e}"),
    }
}

/// How to rebuild a vendor program: its source or IL and build options as the vendor tells
/// them, else what ShadowCL kept of it (linked, or made from a binary); `None` when neither.
fn program_code(program: usize) -> Option<Arc<ProgramCode>> {
    let source = vendor_info_bytes(Kind::Program, program, CL_PROGRAM_SOURCE)
        .map(text)
        .ok()
        .filter(|s| !s.is_empty());
    let spirv = vendor_info_bytes(Kind::Program, program, CL_PROGRAM_IL)
        .ok()
        .filter(|b| !b.is_empty());
    if source.is_none() && spirv.is_none() {
        return lookup_vendor(Kind::Program, program).and_then(|w| w.code.lock().clone());
    }
    let device = word::<usize>(vendor_info_bytes(Kind::Program, program, CL_PROGRAM_DEVICES).ok())
        .unwrap_or(0);
    Some(Arc::new(ProgramCode {
        source,
        spirv,
        bitcode: None,
        options: build_options(program, device).unwrap_or_default(),
    }))
}

/// Programs by the SHA-256 of a binary the vendor gave for them, so a program the application
/// makes again from that binary (in this process) is recorded with its source.
static BINARIES: LazyLock<Mutex<HashMap<[u8; 32], Arc<ProgramCode>>>> =
    LazyLock::new(Default::default);

fn digest(b: &[u8]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    Sha256::digest(b).into()
}

/// After a successful clGetProgramInfo: remembers the binaries handed to the application.
pub(crate) fn binaries_given(program: usize, param: cl_uint, value: *mut c_void, len: usize) {
    if param != CL_PROGRAM_BINARIES || value.is_null() || recorder().is_none() {
        return;
    }
    let Some(code) = program_code(program) else {
        return;
    };
    let Ok(sizes) = vendor_info_bytes(Kind::Program, program, CL_PROGRAM_BINARY_SIZES) else {
        return;
    };
    let ptrs = value.cast::<*const u8>();
    let mut map = BINARIES.lock();
    for (i, size) in sizes.chunks_exact(W).enumerate().take(len / W) {
        let size = usize::from_ne_bytes(size.try_into().unwrap_or([0; W]));
        // SAFETY: the answer is len bytes of pointers the application gave; the vendor just
        // wrote `size` bytes of binary through each non-NULL one.
        let p = unsafe { ptrs.add(i).read_unaligned() };
        if p.is_null() || size == 0 {
            continue;
        }
        // SAFETY: see above.
        let bin = unsafe { std::slice::from_raw_parts(p, size) };
        map.insert(digest(bin), code.clone());
    }
}

/// After a successful clCreateProgramWithBinary: a binary this process was given names the
/// program's source.
pub(crate) fn from_binaries(
    program: cl_program,
    n: cl_uint,
    lengths: *const usize,
    binaries: *mut *const u8,
) {
    if recorder().is_none() || lengths.is_null() || binaries.is_null() {
        return;
    }
    let Ok(w) = get(Kind::Program, program) else {
        return;
    };
    let map = BINARIES.lock();
    for i in 0..n as usize {
        // SAFETY: the application's arrays of n lengths and binaries, which the vendor just
        // accepted.
        let (len, p) = unsafe { (lengths.add(i).read(), binaries.add(i).read()) };
        if p.is_null() || len == 0 {
            continue;
        }
        // SAFETY: see above.
        let bin = unsafe { std::slice::from_raw_parts(p, len) };
        if let Some(code) = map.get(&digest(bin)) {
            *w.code.lock() = Some(code.clone());
            return;
        }
    }
}

const W: usize = std::mem::size_of::<usize>();

/// The kernel's metadata, asked from the vendor the first time it is needed.
pub(crate) fn meta(k: &Wrapper) -> &KernelMeta {
    k.meta.get_or_init(|| query_meta(k.vendor))
}

/// Whether argument `i` of the kernel is a `__global` or `__constant` pointer.
/// What an argument takes, as far as the vendor's argument information tells.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum ArgRole {
    /// A `__global` or `__constant` pointer: a buffer.
    Buffer,
    /// An image (global address space too, told apart by its type name).
    Image,
    Sampler,
    /// By value, `__local`, or not known.
    Other,
}

pub(crate) fn arg_role(k: &Wrapper, i: cl_uint) -> ArgRole {
    let Some(a) = meta(k).args.get(i as usize) else {
        return ArgRole::Other;
    };
    let global = matches!(
        a.address,
        Some(CL_KERNEL_ARG_ADDRESS_GLOBAL | CL_KERNEL_ARG_ADDRESS_CONSTANT)
    );
    match a.type_name.as_str() {
        "sampler_t" => ArgRole::Sampler,
        t if t.starts_with("image") && t.ends_with("_t") => ArgRole::Image,
        _ if global => ArgRole::Buffer,
        _ => ArgRole::Other,
    }
}

/// Host memory a vendor read fills in the background. Only touched once its event is
/// complete ([`wait_all`]); never freed before: dropping one still in flight waits for it.
struct Pending {
    bytes: Vec<u8>,
    /// NULL once waited for and released.
    event: cl_event,
}

impl Drop for Pending {
    fn drop(&mut self) {
        // The vendor may still be writing into `bytes`: freeing them now would corrupt the
        // heap. Launches hand their reads to the writer thread, so this wait is a safety net.
        wait_all(std::iter::once(self));
    }
}

// SAFETY: the bytes are plain memory and the event a vendor handle, usable from any thread
// (OpenCL objects are thread-safe); the writer thread takes them over.
unsafe impl Send for Pending {}

/// A non-blocking read of the `size` bytes of a vendor buffer or image (tightly packed
/// texels) after `wait`: the application's thread never waits for it (its wait list may hold a
/// user event the application completes later); the launch waits for the read instead, and the
/// writer thread for its event.
fn read_mem(
    q: usize,
    mem: usize,
    size: usize,
    image: Option<&ImageDesc>,
    wait: &[cl_event],
) -> Option<Pending> {
    let mut p = Pending {
        bytes: vec![0u8; size],
        event: std::ptr::null_mut(),
    };
    let wait_ptr = if wait.is_empty() {
        std::ptr::null()
    } else {
        wait.as_ptr()
    };
    let (q, mem, n_wait) = (q as cl_command_queue, mem as cl_mem, wait.len() as cl_uint);
    let dst: *mut c_void = p.bytes.as_mut_ptr().cast();
    // SAFETY (both calls): the vendor's read into p.bytes, which holds the `size` bytes asked
    // for (a packed image's extent, see mem_value) and stays alive and untouched until p.event
    // completes (Pending).
    let r = match image {
        None => {
            let f = vendor_slot!(clEnqueueReadBuffer).ok()?;
            unsafe {
                f(
                    q,
                    mem,
                    CL_FALSE,
                    0,
                    size,
                    dst,
                    n_wait,
                    wait_ptr,
                    &mut p.event,
                )
            }
        }
        Some(d) => {
            let f = vendor_slot!(clEnqueueReadImage).ok()?;
            let region = cl_region(d).map(|x| x as usize);
            let origin = [0usize; 3];
            unsafe {
                f(
                    q,
                    mem,
                    CL_FALSE,
                    origin.as_ptr(),
                    region.as_ptr(),
                    0,
                    0,
                    dst,
                    n_wait,
                    wait_ptr,
                    &mut p.event,
                )
            }
        }
    };
    (r == CL_SUCCESS && !p.event.is_null()).then_some(p)
}

/// The region of a whole image as clEnqueueReadImage counts it (a 1-D array's layers are its
/// second coordinate).
fn cl_region(d: &ImageDesc) -> [u64; 3] {
    match d.dim {
        ImageDim::D1Array => [d.width, d.array_size, 1],
        _ => d.extent(),
    }
}

/// What a `cl_mem` argument is: a buffer (its size, flags and place in a parent buffer) or an
/// image (its packed layout). `None` when the vendor cannot say.
fn mem_value(w: &Wrapper) -> Option<Value> {
    let v = w.vendor;
    let flags = vendor_info::<u64>(Kind::Mem, v, CL_MEM_FLAGS).unwrap_or(0);
    // The wrapper asked the type once when it was made; 0 when the vendor did not say then.
    let kind = match w.mem_type {
        0 => vendor_info::<cl_mem_object_type>(Kind::Mem, v, CL_MEM_TYPE).ok()?,
        t => t,
    };
    if kind == CL_MEM_OBJECT_BUFFER {
        let size = vendor_info::<usize>(Kind::Mem, v, CL_MEM_SIZE).ok()?;
        let parent = vendor_info::<usize>(Kind::Mem, v, CL_MEM_ASSOCIATED_MEMOBJECT).unwrap_or(0);
        let origin = vendor_info::<usize>(Kind::Mem, v, CL_MEM_OFFSET).unwrap_or(0);
        return Some(Value::Buffer {
            vendor: v,
            size: size as u64,
            flags,
            identity: if parent != 0 { parent } else { v } as u64,
            origin: origin as u64,
            image: None,
            bytes: None,
        });
    }
    let dim = crate::core::image::dim_of(kind)?;
    let format = image_info::<cl_image_format>(v, CL_IMAGE_FORMAT)?;
    let format = crate::core::image::check_format(&format).ok()?;
    let [w, h, d, n] = [
        CL_IMAGE_WIDTH,
        CL_IMAGE_HEIGHT,
        CL_IMAGE_DEPTH,
        CL_IMAGE_ARRAY_SIZE,
    ]
    .map(|p| image_info::<usize>(v, p).unwrap_or(0) as u64);
    let desc = ImageDesc::packed(dim, format, [w, h, d], n)?;
    let size = desc.slice_pitch.checked_mul(desc.extent()[2])?;
    // Its own identity: the texels are packed, not laid out as in a buffer it may share.
    Some(Value::Buffer {
        vendor: v,
        size,
        flags,
        identity: v as u64,
        origin: 0,
        image: Some(desc),
        bytes: None,
    })
}

fn image_info<T: Copy + Default>(v: usize, param: cl_uint) -> Option<T> {
    let f = vendor_slot!(clGetImageInfo).ok()?;
    let mut x = T::default();
    // SAFETY: the vendor writes at most size_of::<T>() bytes into x.
    let r = unsafe {
        f(
            v as cl_mem,
            param,
            std::mem::size_of::<T>(),
            (&mut x as *mut T).cast(),
            std::ptr::null_mut(),
        )
    };
    (r == CL_SUCCESS).then_some(x)
}

/// The `sampler_t` bits a kernel sees for a vendor sampler, as native capture records them.
fn sampler_bits(v: usize) -> Option<u32> {
    let normalized = vendor_info::<cl_bool>(Kind::Sampler, v, CL_SAMPLER_NORMALIZED_COORDS).ok()?;
    let addressing =
        vendor_info::<cl_addressing_mode>(Kind::Sampler, v, CL_SAMPLER_ADDRESSING_MODE).ok()?;
    let filter = vendor_info::<cl_filter_mode>(Kind::Sampler, v, CL_SAMPLER_FILTER_MODE).ok()?;
    Some(crate::core::sampler::sampler_bits(
        normalized != 0,
        addressing,
        filter,
    ))
}

/// Waits for the reads still in flight (off the application's thread) and releases their
/// events; false when one failed.
fn wait_all<'a>(reads: impl IntoIterator<Item = &'a mut Pending>) -> bool {
    let mut reads: Vec<&mut Pending> = reads.into_iter().filter(|p| !p.event.is_null()).collect();
    if reads.is_empty() {
        return true;
    }
    let events: Vec<cl_event> = reads.iter().map(|p| p.event).collect();
    let ok = match vendor_slot!(clWaitForEvents) {
        Ok(f) => {
            // SAFETY: the vendor's clWaitForEvents on events it gave us.
            let r = unsafe { f(events.len() as cl_uint, events.as_ptr()) };
            r == CL_SUCCESS
        }
        Err(_) => false,
    };
    for p in &mut reads {
        release_event(p.event);
        p.event = std::ptr::null_mut();
    }
    ok
}

pub(crate) fn release_event(e: cl_event) {
    if let Ok(f) = vendor_slot!(clReleaseEvent) {
        // SAFETY: the vendor's clReleaseEvent on an event it gave us.
        unsafe { f(e) };
    }
}

enum Value {
    Scalar(Vec<u8>),
    Buffer {
        vendor: usize,
        size: u64,
        flags: u64,
        identity: u64,
        origin: u64,
        /// An image: its layout; `bytes` are its texels, tightly packed.
        image: Option<ImageDesc>,
        bytes: Option<Pending>,
    },
    Local(u64),
    Null,
}

struct Arg {
    address: AddressQualifier,
    value: Value,
}

/// One launch being recorded: gathered (and inputs read) before the vendor runs it, written
/// once the vendor accepted it.
pub struct Launch {
    rec: &'static Recorder,
    kernel: Arc<Wrapper>,
    queue: usize,
    work_dim: u32,
    offset: [u64; 3],
    global: [u64; 3],
    local_given: Option<[u64; 3]>,
    local: [u64; 3],
    args: Vec<Arg>,
    outputs: Vec<(u32, Pending)>,
    /// The vendor refused the launch: only wait for the input reads, record nothing.
    abandoned: bool,
}

// SAFETY: vendor handles are usable from any thread; the rest is owned data.
unsafe impl Send for Launch {}

fn dims(p: *const usize, work_dim: u32, unused: u64) -> Option<[u64; 3]> {
    if p.is_null() {
        return None;
    }
    let mut d = [unused; 3];
    for (i, x) in d.iter_mut().enumerate().take(work_dim as usize) {
        // SAFETY: the application passes work_dim sizes (spec).
        *x = unsafe { p.add(i).read() } as u64;
    }
    Some(d)
}

/// ShadowCL's own choice without a local size: the largest divisor of the global size up to
/// 64 in dimension 0 (the vendor's choice is not observable).
fn default_local(global: [u64; 3]) -> [u64; 3] {
    let d0 = (1..=64.min(global[0]))
        .rev()
        .find(|l| global[0].is_multiple_of(*l))
        .unwrap_or(1);
    [d0, 1, 1]
}

impl Launch {
    #[allow(clippy::too_many_arguments)]
    pub fn gather(
        rec: &'static Recorder,
        k: &Arc<Wrapper>,
        queue: usize,
        work_dim: u32,
        offset: *const usize,
        global: *const usize,
        local: *const usize,
        wait: &[cl_event],
    ) -> Option<Launch> {
        if !(1..=3).contains(&work_dim) {
            return None;
        }
        let m = meta(k);
        if !rec.wants(&m.name) {
            return None;
        }
        let global = dims(global, work_dim, 1)?;
        let local_given = dims(local, work_dim, 1);
        let set = k.args.lock().clone();
        let mut args = Vec::new();
        for (i, a) in m.args.iter().enumerate() {
            let buffer_arg = arg_role(k, i as cl_uint) == ArgRole::Buffer;
            let value = match set.get(i).cloned().flatten() {
                // Not set: the vendor refuses the launch.
                None => return None,
                Some(ArgVal::Mem(w)) if w.kind == Kind::Mem => mem_value(&w)?,
                Some(ArgVal::Mem(w)) => {
                    Value::Scalar(u64::from(sampler_bits(w.vendor)?).to_le_bytes().to_vec())
                }
                Some(ArgVal::NullValue(n)) if !buffer_arg => Value::Local(n as u64),
                Some(ArgVal::NullValue(_)) => Value::Null,
                Some(ArgVal::Bytes(b)) if buffer_arg && b.iter().all(|&x| x == 0) => Value::Null,
                Some(ArgVal::Bytes(b)) => Value::Scalar(b),
            };
            let address = match (a.address, &value) {
                (Some(CL_KERNEL_ARG_ADDRESS_CONSTANT), _) => AddressQualifier::Constant,
                (Some(CL_KERNEL_ARG_ADDRESS_LOCAL), _) | (None, Value::Local(_)) => {
                    AddressQualifier::Local
                }
                (Some(CL_KERNEL_ARG_ADDRESS_GLOBAL), _) | (None, Value::Buffer { .. }) => {
                    AddressQualifier::Global
                }
                _ => AddressQualifier::Private,
            };
            args.push(Arg { address, value });
        }
        // Reads only once every argument is known good: a launch given up above would drop
        // reads the vendor is still filling.
        if rec.config().data != DataMode::None {
            for a in &mut args {
                if let Value::Buffer {
                    vendor,
                    size,
                    image,
                    bytes,
                    ..
                } = &mut a.value
                {
                    *bytes = read_mem(queue, *vendor, *size as usize, image.as_ref(), wait);
                }
            }
        }
        Some(Launch {
            rec,
            kernel: k.clone(),
            queue,
            work_dim,
            offset: dims(offset, work_dim, 0).unwrap_or([0; 3]),
            global,
            local_given,
            local: local_given.unwrap_or_else(|| default_local(global)),
            args,
            outputs: Vec::new(),
            abandoned: false,
        })
    }

    /// Events of the input reads: the kernel must wait for them (it may overwrite its inputs).
    pub(crate) fn input_events(&self) -> Vec<cl_event> {
        self.args
            .iter()
            .filter_map(|a| match &a.value {
                Value::Buffer { bytes: Some(p), .. } => Some(p.event),
                _ => None,
            })
            .collect()
    }

    /// The vendor refused the launch: the input reads still land in our memory, so the
    /// writer waits for them before freeing it.
    pub(crate) fn abandon(mut self) {
        self.abandoned = true;
        writer::submit(self);
    }

    pub fn wants_outputs(&self) -> bool {
        self.rec.wants_outputs()
    }

    /// The vendor accepted the launch. `event`: its event (NULL when neither the application
    /// nor outputs asked for one), `ours`: created for us (released here), else the
    /// application's. Output reads are queued after it; the record is written by a background thread
    /// once the reads are done, so the application never waits for capture (records still
    /// pending at exit are written then).
    pub(crate) fn finish(mut self, event: cl_event, ours: bool) {
        // Output reads are queued after the kernel's event; once queued they hold the
        // dependency, so the event itself is not kept (a held event would show in the
        // application's reference counts).
        if !event.is_null() && self.rec.wants_outputs() {
            for (i, a) in self.args.iter().enumerate() {
                if let Value::Buffer {
                    vendor,
                    size,
                    image,
                    ..
                } = &a.value
                {
                    let read = read_mem(
                        self.queue,
                        *vendor,
                        *size as usize,
                        image.as_ref(),
                        &[event],
                    );
                    if let Some(p) = read {
                        self.outputs.push((i as u32, p));
                    }
                }
            }
        }
        if ours && !event.is_null() {
            release_event(event);
        }
        writer::submit(self);
    }

    /// On the writer thread: waits for the reads, then writes the record.
    fn write(mut self) {
        let inputs_ok = wait_all(self.args.iter_mut().filter_map(|a| match &mut a.value {
            Value::Buffer { bytes: Some(p), .. } => Some(p),
            _ => None,
        }));
        let outputs_ok = wait_all(self.outputs.iter_mut().map(|(_, p)| p));
        if self.abandoned {
            return;
        }
        if !inputs_ok {
            for a in &mut self.args {
                if let Value::Buffer { bytes, .. } = &mut a.value {
                    *bytes = None;
                }
            }
        }
        let m = meta(&self.kernel);
        let access = |a: u32| match a {
            CL_KERNEL_ARG_ACCESS_READ_ONLY => "read_only",
            CL_KERNEL_ARG_ACCESS_WRITE_ONLY => "write_only",
            CL_KERNEL_ARG_ACCESS_READ_WRITE => "read_write",
            _ => "none",
        };
        let inputs: Vec<ArgInput<'_>> = self
            .args
            .iter()
            .zip(&m.args)
            .enumerate()
            .map(|(i, (a, am))| ArgInput {
                index: i as u32,
                name: &am.name,
                address: a.address,
                access: access(am.access),
                type_name: &am.type_name,
                type_qualifier: am.type_qualifier,
                value: match &a.value {
                    Value::Scalar(b) => ArgData::Scalar(b),
                    Value::Local(n) => ArgData::Local(*n),
                    Value::Null => ArgData::Null,
                    Value::Buffer {
                        size,
                        flags,
                        identity,
                        origin,
                        image,
                        bytes,
                        ..
                    } => {
                        let b = BufferArg {
                            size: *size,
                            flags: *flags,
                            identity: *identity,
                            origin: *origin,
                            contents: match bytes {
                                Some(p) => Contents::Bytes(&p.bytes),
                                None => Contents::Unavailable,
                            },
                        };
                        match image {
                            Some(d) => ArgData::Image(b, *d),
                            None => ArgData::Buffer(b),
                        }
                    }
                },
            })
            .collect();
        let input = LaunchInput {
            program: ProgramInput {
                source: m.source.as_deref(),
                spirv: m.il.as_deref(),
                build_options: &m.options,
            },
            kernel: &m.name,
            work_dim: self.work_dim,
            global_offset: self.offset,
            global_size: self.global,
            local_size_given: self.local_given,
            local_size: self.local,
            args: &inputs,
        };
        let id = match self.rec.record(&input) {
            Ok(Some(id)) => id,
            Ok(None) => return,
            Err(e) => {
                eprintln!("ShadowCL: could not record launch of {}: {e}", m.name);
                return;
            }
        };
        if !self.rec.wants_outputs() || !outputs_ok {
            return;
        }
        let contents: Vec<(u32, Contents<'_>)> = self
            .outputs
            .iter()
            .map(|(i, p)| (*i, Contents::Bytes(&p.bytes)))
            .collect();
        if let Err(e) = self.rec.record_outputs(id, &contents) {
            eprintln!("ShadowCL: could not record outputs of {}: {e}", m.name);
        }
    }
}

/// The thread that writes records in launch order.
mod writer {
    use super::Launch;
    use parking_lot::{Condvar, Mutex};
    use std::sync::OnceLock;
    use std::time::Duration;

    struct Writer {
        tx: crossbeam_channel::Sender<Launch>,
        /// Records submitted and not yet written.
        pending: Mutex<usize>,
        done: Condvar,
    }

    fn writer() -> &'static Writer {
        static W: OnceLock<Writer> = OnceLock::new();
        W.get_or_init(|| {
            let (tx, rx) = crossbeam_channel::unbounded::<Launch>();
            let spawned = std::thread::Builder::new()
                .name("shadowcl-capture".into())
                .spawn(move || {
                    lowest_priority();
                    for l in rx {
                        l.write();
                        let w = writer();
                        *w.pending.lock() -= 1;
                        w.done.notify_all();
                    }
                });
            if let Err(e) = spawned {
                eprintln!("ShadowCL: no capture thread ({e}); launches are not recorded");
            }
            extern "C" {
                fn atexit(f: extern "C" fn()) -> std::ffi::c_int;
            }
            // SAFETY: libc's atexit with a function that lives as long as the process (the
            // ICD loader never unloads this library).
            unsafe { atexit(flush_at_exit) };
            Writer {
                tx,
                pending: Mutex::new(0),
                done: Condvar::new(),
            }
        })
    }

    /// Writing records must not take CPU time from the application's device threads (the
    /// point of forwarding is native speed): the writer runs at nice 19 and catches up when the
    /// CPU is idle, at the latest at exit.
    fn lowest_priority() {
        extern "C" {
            fn gettid() -> std::ffi::c_int;
            fn setpriority(
                which: std::ffi::c_int,
                who: std::ffi::c_uint,
                prio: std::ffi::c_int,
            ) -> std::ffi::c_int;
        }
        // SAFETY: glibc calls on the calling thread's own id (PRIO_PROCESS = 0 with a thread
        // id sets that thread's nice value on Linux); failure only leaves the priority as is.
        unsafe {
            let tid = gettid();
            setpriority(0, tid as std::ffi::c_uint, 19);
        }
    }

    pub(super) fn submit(l: Launch) {
        let w = writer();
        *w.pending.lock() += 1;
        if let Err(e) = w.tx.send(l) {
            *w.pending.lock() -= 1;
            e.into_inner().write();
        }
    }

    /// Waits (up to 20 s: a launch may wait on a user event the application never completed)
    /// for the records still queued when the process exits.
    extern "C" fn flush_at_exit() {
        let _ = std::panic::catch_unwind(|| {
            let w = writer();
            let mut n = w.pending.lock();
            let deadline = std::time::Instant::now() + Duration::from_secs(20);
            while *n > 0 && std::time::Instant::now() < deadline {
                w.done.wait_for(&mut n, Duration::from_millis(100));
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_local_size_divides_the_global_size() {
        assert_eq!(default_local([1024, 1, 1]), [64, 1, 1]);
        assert_eq!(default_local([100, 4, 1]), [50, 1, 1]);
        assert_eq!(default_local([7, 1, 1]), [7, 1, 1]);
        assert_eq!(default_local([67, 1, 1]), [1, 1, 1]);
    }
}
