//! Buffers and sub-buffers, and the commands that move their bytes.
#![allow(clippy::missing_safety_doc, clippy::too_many_arguments)] // entry points: see the spec

use crate::consts::*;
use crate::context::{self, Context};
use crate::entry::{call, call_ptr};
use crate::info::{properties, slice, v, write_info, UserPtr};
use crate::object::{self, ClObject, Ref};
use crate::platform::{MAX_ALLOC, MEM_BASE_ADDR_ALIGN_BITS};
use crate::queue::{self, enqueue, get_queue, wait_list, Queue};
use crate::types::*;
use parking_lot::Mutex;
use shadowcl_interpreter::Buffer;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

pub type MemDestructorFn = unsafe extern "C" fn(cl_mem, *mut c_void);

pub struct Mem {
    pub context: Ref<Context>,
    pub flags: cl_mem_flags,
    pub size: usize,
    /// The application's pointer for `CL_MEM_USE_HOST_PTR` (NULL otherwise).
    pub host_ptr: UserPtr,
    /// The storage (shared with the parent for sub-buffers).
    pub storage: Arc<Buffer>,
    /// Offset of this object's bytes in `storage`.
    pub offset: usize,
    pub parent: Option<Ref<Mem>>,
    pub properties: Vec<cl_mem_properties>,
    pub map_count: AtomicU32,
    destructors: Mutex<Vec<(MemDestructorFn, UserPtr)>>,
    /// Set for image objects (`crate::image`).
    pub image: Option<crate::image::ImageInfo>,
}

/// A memory object over `storage` (images: `crate::image` builds them through this).
pub(crate) fn new_mem(
    context: Ref<Context>,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: UserPtr,
    storage: Arc<Buffer>,
    properties: Vec<cl_mem_properties>,
    image: Option<crate::image::ImageInfo>,
) -> Ref<Mem> {
    object::create(Mem {
        context,
        flags,
        size,
        host_ptr,
        storage,
        offset: 0,
        parent: None,
        properties,
        map_count: AtomicU32::new(0),
        destructors: Mutex::new(Vec::new()),
        image,
    })
}

impl ClObject for Mem {
    const TAG: u32 = 0x5C1_0005;
    const INVALID: i32 = CL_INVALID_MEM_OBJECT;
    type Handle = cl_mem;
    fn destroyed(&self, handle: *mut c_void) {
        // A 1-D buffer image shares its buffer's storage, which outlives it.
        let shares_storage = self.image.as_ref().is_some_and(|i| i.buffer.is_some());
        if self.parent.is_none() && !shares_storage {
            crate::launch::buffer_released(self.storage.id());
        }
        let cbs = std::mem::take(&mut *self.destructors.lock());
        for (f, user) in cbs.into_iter().rev() {
            // SAFETY: the application's destructor callback, called once.
            unsafe { f(handle.cast(), user.0) };
        }
    }
}

pub fn get_mem(m: cl_mem) -> Result<Ref<Mem>, cl_int> {
    object::get::<Mem, _>(m)
}

const ACCESS: cl_mem_flags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
const HOST_PTR_FLAGS: cl_mem_flags =
    CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
const HOST_ACCESS: cl_mem_flags =
    CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;

/// Validates `cl_mem_flags` for `clCreateBuffer`; returns them with the default access added.
pub fn check_buffer_flags(flags: cl_mem_flags, host_ptr: bool) -> Result<cl_mem_flags, cl_int> {
    if flags & !(ACCESS | HOST_PTR_FLAGS | HOST_ACCESS) != 0 {
        return Err(CL_INVALID_VALUE);
    }
    if (flags & ACCESS).count_ones() > 1 || (flags & HOST_ACCESS).count_ones() > 1 {
        return Err(CL_INVALID_VALUE);
    }
    if flags & CL_MEM_USE_HOST_PTR != 0
        && flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0
    {
        return Err(CL_INVALID_VALUE);
    }
    let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    if wants_ptr != host_ptr {
        return Err(CL_INVALID_HOST_PTR);
    }
    Ok(if flags & ACCESS == 0 {
        flags | CL_MEM_READ_WRITE
    } else {
        flags
    })
}

/// Flags of a sub-buffer: checks them against the parent's and inherits what is not given.
pub fn sub_buffer_flags(parent: cl_mem_flags, flags: cl_mem_flags) -> Result<cl_mem_flags, cl_int> {
    if flags & !(ACCESS | HOST_ACCESS) != 0 {
        return Err(CL_INVALID_VALUE);
    }
    if (flags & ACCESS).count_ones() > 1 || (flags & HOST_ACCESS).count_ones() > 1 {
        return Err(CL_INVALID_VALUE);
    }
    let pa = parent & ACCESS;
    let a = flags & ACCESS;
    if (pa == CL_MEM_WRITE_ONLY && a & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY) != 0)
        || (pa == CL_MEM_READ_ONLY && a & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY) != 0)
    {
        return Err(CL_INVALID_VALUE);
    }
    let ph = parent & HOST_ACCESS;
    let h = flags & HOST_ACCESS;
    if (ph == CL_MEM_HOST_WRITE_ONLY && h == CL_MEM_HOST_READ_ONLY)
        || (ph == CL_MEM_HOST_READ_ONLY && h == CL_MEM_HOST_WRITE_ONLY)
        || (ph == CL_MEM_HOST_NO_ACCESS
            && h & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY) != 0)
    {
        return Err(CL_INVALID_VALUE);
    }
    let access = if a == 0 { pa } else { a };
    let host = if h == 0 { ph } else { h };
    Ok(access | host | (parent & HOST_PTR_FLAGS))
}

fn create_buffer(
    context: cl_context,
    props: Vec<cl_mem_properties>,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
) -> Result<cl_mem, cl_int> {
    let ctx = context::get(context)?;
    let flags = check_buffer_flags(flags, !host_ptr.is_null())?;
    if size == 0 || size as u64 > MAX_ALLOC {
        return Err(CL_INVALID_BUFFER_SIZE);
    }
    let storage = if flags & CL_MEM_USE_HOST_PTR != 0 {
        // SAFETY: CL_MEM_USE_HOST_PTR: the application keeps `size` bytes at host_ptr valid
        // for the buffer's lifetime and does not touch them while commands use it (spec).
        unsafe { Buffer::from_host_ptr(host_ptr.cast(), size) }
    } else {
        let b = Buffer::new(size).ok_or(CL_MEM_OBJECT_ALLOCATION_FAILURE)?;
        if flags & CL_MEM_COPY_HOST_PTR != 0 {
            let src = slice(host_ptr.cast::<u8>(), size, CL_INVALID_HOST_PTR)?;
            b.write(0, src).map_err(|_| CL_INVALID_HOST_PTR)?;
        }
        b
    };
    crate::launch::buffer_created(
        &storage,
        flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR) != 0,
    );
    let m = object::create(Mem {
        context: ctx,
        flags,
        size,
        host_ptr: UserPtr(if flags & CL_MEM_USE_HOST_PTR != 0 {
            host_ptr
        } else {
            std::ptr::null_mut()
        }),
        storage,
        offset: 0,
        parent: None,
        properties: props,
        map_count: AtomicU32::new(0),
        destructors: Mutex::new(Vec::new()),
        image: None,
    });
    Ok(object::into_handle(m))
}

pub unsafe extern "C" fn clCreateBuffer(
    context: cl_context,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    call_ptr("clCreateBuffer", errcode_ret, || {
        create_buffer(context, Vec::new(), flags, size, host_ptr)
    })
}

pub unsafe extern "C" fn clCreateBufferWithProperties(
    context: cl_context,
    props: *const cl_mem_properties,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    call_ptr("clCreateBufferWithProperties", errcode_ret, || {
        context::get(context)?;
        if !properties(props)?.is_empty() {
            return Err(CL_INVALID_PROPERTY);
        }
        let list = if props.is_null() { Vec::new() } else { vec![0] };
        create_buffer(context, list, flags, size, host_ptr)
    })
}

pub unsafe extern "C" fn clCreateSubBuffer(
    buffer: cl_mem,
    flags: cl_mem_flags,
    buffer_create_type: cl_buffer_create_type,
    buffer_create_info: *const c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    call_ptr("clCreateSubBuffer", errcode_ret, || {
        let parent = get_mem(buffer)?;
        if parent.parent.is_some() || parent.image.is_some() {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        let flags = sub_buffer_flags(parent.flags, flags)?;
        if buffer_create_type != CL_BUFFER_CREATE_TYPE_REGION || buffer_create_info.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: CL_BUFFER_CREATE_TYPE_REGION: the info points to a cl_buffer_region (spec).
        let region = unsafe {
            buffer_create_info
                .cast::<cl_buffer_region>()
                .read_unaligned()
        };
        if region.size == 0 {
            return Err(CL_INVALID_BUFFER_SIZE);
        }
        match region.origin.checked_add(region.size) {
            Some(end) if end <= parent.size => {}
            _ => return Err(CL_INVALID_VALUE),
        }
        if region.origin % (MEM_BASE_ADDR_ALIGN_BITS as usize / 8) != 0 {
            return Err(CL_MISALIGNED_SUB_BUFFER_OFFSET);
        }
        let host_ptr = if parent.host_ptr.0.is_null() {
            std::ptr::null_mut()
        } else {
            parent.host_ptr.0.wrapping_byte_add(region.origin)
        };
        let m = object::create(Mem {
            context: parent.context.clone(),
            flags,
            size: region.size,
            host_ptr: UserPtr(host_ptr),
            storage: parent.storage.clone(),
            offset: parent.offset + region.origin,
            parent: Some(parent.clone()),
            properties: Vec::new(),
            map_count: AtomicU32::new(0),
            destructors: Mutex::new(Vec::new()),
            image: None,
        });
        Ok(object::into_handle(m))
    })
}

pub unsafe extern "C" fn clRetainMemObject(m: cl_mem) -> cl_int {
    call("clRetainMemObject", || object::retain::<Mem, _>(m))
}

pub unsafe extern "C" fn clReleaseMemObject(m: cl_mem) -> cl_int {
    call("clReleaseMemObject", || object::release::<Mem, _>(m))
}

pub unsafe extern "C" fn clSetMemObjectDestructorCallback(
    m: cl_mem,
    pfn_notify: Option<MemDestructorFn>,
    user_data: *mut c_void,
) -> cl_int {
    call("clSetMemObjectDestructorCallback", || {
        let m = get_mem(m)?;
        let f = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        m.destructors.lock().push((f, UserPtr(user_data)));
        Ok(())
    })
}

pub unsafe extern "C" fn clGetMemObjectInfo(
    m: cl_mem,
    param_name: cl_mem_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetMemObjectInfo", || {
        let m = get_mem(m)?;
        let answer = match param_name {
            CL_MEM_TYPE => v(&m
                .image
                .as_ref()
                .map_or(CL_MEM_OBJECT_BUFFER, |i| i.mem_type)),
            CL_MEM_FLAGS => v(&m.flags),
            CL_MEM_SIZE => v(&m.size),
            CL_MEM_HOST_PTR => v(&m.host_ptr.0),
            CL_MEM_MAP_COUNT => v(&m.map_count.load(Ordering::Relaxed)),
            CL_MEM_REFERENCE_COUNT => v(&object::ref_count(&m)),
            CL_MEM_CONTEXT => v(&object::handle::<Context>(&m.context)),
            CL_MEM_ASSOCIATED_MEMOBJECT => v(&m
                .parent
                .as_ref()
                .or(m.image.as_ref().and_then(|i| i.buffer.as_ref()))
                .map(object::handle::<Mem>)
                .unwrap_or(std::ptr::null_mut())),
            CL_MEM_OFFSET => v(&(m.offset - m.parent.as_ref().map(|p| p.offset).unwrap_or(0))),
            CL_MEM_USES_SVM_POINTER => v(&CL_FALSE),
            CL_MEM_PROPERTIES => v(&m.properties),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

/// A queue and a buffer (not an image) of the same context.
fn queue_and_mem(q: cl_command_queue, m: cl_mem) -> Result<(Ref<Queue>, Ref<Mem>), cl_int> {
    let (q, m) = queue_and_any_mem(q, m)?;
    if m.image.is_some() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    Ok((q, m))
}

/// The queue and the two buffers of a buffer-to-buffer copy, all of one context.
struct BufferCopyOperands {
    queue: Ref<Queue>,
    src: Ref<Mem>,
    dst: Ref<Mem>,
}

/// Resolves and checks a buffer copy's queue and buffers, the source before the destination.
fn buffer_copy_operands(
    q: cl_command_queue,
    src: cl_mem,
    dst: cl_mem,
) -> Result<BufferCopyOperands, cl_int> {
    let (queue, src) = queue_and_mem(q, src)?;
    let dst = get_mem(dst)?;
    if dst.image.is_some() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    if !Arc::ptr_eq(&queue.context, &dst.context) {
        return Err(CL_INVALID_CONTEXT);
    }
    Ok(BufferCopyOperands { queue, src, dst })
}

/// A queue and a memory object (buffer or image) of the same context.
pub(crate) fn queue_and_any_mem(
    q: cl_command_queue,
    m: cl_mem,
) -> Result<(Ref<Queue>, Ref<Mem>), cl_int> {
    let q = get_queue(q)?;
    let m = get_mem(m)?;
    if !Arc::ptr_eq(&q.context, &m.context) {
        return Err(CL_INVALID_CONTEXT);
    }
    Ok((q, m))
}

fn check_range(m: &Mem, offset: usize, size: usize) -> Result<(), cl_int> {
    match offset.checked_add(size) {
        Some(end) if end <= m.size => Ok(()),
        _ => Err(CL_INVALID_VALUE),
    }
}

/// `map_flags` of `clEnqueueMapBuffer` and `clEnqueueMapImage`: known bits,
/// WRITE_INVALIDATE_REGION alone, and host access the memory object allows for them.
pub(crate) fn check_map_flags(m: &Mem, map_flags: cl_map_flags) -> Result<(), cl_int> {
    let known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    if map_flags & !known != 0
        || (map_flags & CL_MAP_WRITE_INVALIDATE_REGION != 0
            && map_flags & (CL_MAP_READ | CL_MAP_WRITE) != 0)
    {
        return Err(CL_INVALID_VALUE);
    }
    if map_flags & CL_MAP_READ != 0 {
        host_readable(m)?;
    }
    if map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0 {
        host_writable(m)?;
    }
    Ok(())
}

pub(crate) fn host_readable(m: &Mem) -> Result<(), cl_int> {
    if m.flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS) != 0 {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(())
}

pub(crate) fn host_writable(m: &Mem) -> Result<(), cl_int> {
    if m.flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS) != 0 {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(())
}

/// Mutable bytes the application owns.
pub(crate) fn host_bytes<'a>(p: UserPtr, len: usize) -> &'a mut [u8] {
    // SAFETY: the application passed a pointer valid for `len` bytes and keeps it valid and
    // untouched until the command completes (spec of every read command).
    unsafe { std::slice::from_raw_parts_mut(p.0.cast::<u8>(), len) }
}

pub unsafe extern "C" fn clEnqueueReadBuffer(
    q: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    offset: usize,
    size: usize,
    ptr: *mut c_void,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueReadBuffer", || {
        let (q, m) = queue_and_mem(q, buffer)?;
        let waits = wait_list(Some(&q.context), num, list)?;
        check_range(&m, offset, size)?;
        if ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        host_readable(&m)?;
        let dst = UserPtr(ptr);
        enqueue(
            &q,
            CL_COMMAND_READ_BUFFER,
            waits,
            event,
            blocking != 0,
            Box::new(move || {
                m.storage
                    .read(m.offset + offset, host_bytes(dst, size))
                    .map_err(|_| CL_OUT_OF_RESOURCES)
            }),
        )
    })
}

pub unsafe extern "C" fn clEnqueueWriteBuffer(
    q: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    offset: usize,
    size: usize,
    ptr: *const c_void,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueWriteBuffer", || {
        let (q, m) = queue_and_mem(q, buffer)?;
        let waits = wait_list(Some(&q.context), num, list)?;
        check_range(&m, offset, size)?;
        if ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        host_writable(&m)?;
        let src = UserPtr(ptr.cast_mut());
        enqueue(
            &q,
            CL_COMMAND_WRITE_BUFFER,
            waits,
            event,
            blocking != 0,
            Box::new(move || {
                crate::launch::buffer_written_by_host(m.storage.id(), m.offset + offset, size);
                m.storage
                    .write(m.offset + offset, host_bytes(src, size))
                    .map_err(|_| CL_OUT_OF_RESOURCES)
            }),
        )
    })
}

pub unsafe extern "C" fn clEnqueueCopyBuffer(
    q: cl_command_queue,
    src: cl_mem,
    dst: cl_mem,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueCopyBuffer", || {
        let BufferCopyOperands {
            queue: q,
            src: s,
            dst: d,
        } = buffer_copy_operands(q, src, dst)?;
        let waits = wait_list(Some(&q.context), num, list)?;
        if size == 0 {
            return Err(CL_INVALID_VALUE);
        }
        check_range(&s, src_offset, size)?;
        check_range(&d, dst_offset, size)?;
        let (sa, da) = (s.offset + src_offset, d.offset + dst_offset);
        if Arc::ptr_eq(&s.storage, &d.storage) && sa < da + size && da < sa + size {
            return Err(CL_MEM_COPY_OVERLAP);
        }
        enqueue(
            &q,
            CL_COMMAND_COPY_BUFFER,
            waits,
            event,
            false,
            Box::new(move || {
                crate::launch::buffer_written_by_host(d.storage.id(), da, size);
                d.storage
                    .copy_from(da, &s.storage, sa, size)
                    .map_err(|_| CL_OUT_OF_RESOURCES)
            }),
        )
    })
}

pub unsafe extern "C" fn clEnqueueFillBuffer(
    q: cl_command_queue,
    buffer: cl_mem,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueFillBuffer", || {
        let (q, m) = queue_and_mem(q, buffer)?;
        let waits = wait_list(Some(&q.context), num, list)?;
        if pattern.is_null()
            || !pattern_size.is_power_of_two()
            || pattern_size > 128
            || !offset.is_multiple_of(pattern_size)
            || !size.is_multiple_of(pattern_size)
        {
            return Err(CL_INVALID_VALUE);
        }
        check_range(&m, offset, size)?;
        let pat = slice(pattern.cast::<u8>(), pattern_size, CL_INVALID_VALUE)?.to_vec();
        enqueue(
            &q,
            CL_COMMAND_FILL_BUFFER,
            waits,
            event,
            false,
            Box::new(move || {
                crate::launch::buffer_written_by_host(m.storage.id(), m.offset + offset, size);
                m.storage
                    .fill(m.offset + offset, size, &pat)
                    .map_err(|_| CL_OUT_OF_RESOURCES)
            }),
        )
    })
}

/// One side of a rectangular copy: origin (bytes, rows, slices) and pitches.
#[derive(Clone, Copy, Debug)]
pub struct Rect {
    pub origin: [usize; 3],
    pub row_pitch: usize,
    pub slice_pitch: usize,
}

impl Rect {
    /// Applies the defaults and checks of the `*Rect` commands.
    pub fn new(
        origin: [usize; 3],
        region: [usize; 3],
        row: usize,
        slice: usize,
    ) -> Result<Rect, cl_int> {
        let row_pitch = pitch_or_packed(row, region[0])?;
        let min_slice = region[1].checked_mul(row_pitch).ok_or(CL_INVALID_VALUE)?;
        let slice_pitch = pitch_or_packed(slice, min_slice)?;
        if row_pitch != 0 && slice_pitch % row_pitch != 0 {
            return Err(CL_INVALID_VALUE);
        }
        Ok(Rect {
            origin,
            row_pitch,
            slice_pitch,
        })
    }
    pub fn offset(&self, y: usize, z: usize) -> usize {
        (self.origin[2] + z) * self.slice_pitch
            + (self.origin[1] + y) * self.row_pitch
            + self.origin[0]
    }
    /// One past the last byte touched by `region`.
    pub fn end(&self, region: [usize; 3]) -> Option<usize> {
        let last = |o: usize, r: usize| o.checked_add(r)?.checked_sub(1);
        let z = last(self.origin[2], region[2])?.checked_mul(self.slice_pitch)?;
        let y = last(self.origin[1], region[1])?.checked_mul(self.row_pitch)?;
        z.checked_add(y)?
            .checked_add(self.origin[0].checked_add(region[0])?)
    }
}

pub(crate) fn triple(p: *const usize) -> Result<[usize; 3], cl_int> {
    let s = slice(p, 3, CL_INVALID_VALUE)?;
    Ok([s[0], s[1], s[2]])
}

/// A row or slice pitch of a rectangle in a buffer or in host memory, as the buffer `*Rect`
/// commands and the image reads and writes take it: 0 asks for the packed pitch, any other
/// value must leave at least that much room.
pub(crate) fn pitch_or_packed(given: usize, packed: usize) -> Result<usize, cl_int> {
    let pitch = if given == 0 { packed } else { given };
    if pitch < packed {
        return Err(CL_INVALID_VALUE);
    }
    Ok(pitch)
}

/// The `region` argument of a rectangle command: three sizes, none of them 0.
pub(crate) fn region_of(p: *const usize) -> Result<[usize; 3], cl_int> {
    let r = triple(p)?;
    if r.contains(&0) {
        return Err(CL_INVALID_VALUE);
    }
    Ok(r)
}

fn check_rect(m: &Mem, r: &Rect, region: [usize; 3]) -> Result<(), cl_int> {
    match r.end(region) {
        Some(e) if e <= m.size => Ok(()),
        _ => Err(CL_INVALID_VALUE),
    }
}

/// Which way bytes move between a memory object and host memory (buffer rectangles, image
/// reads and writes).
#[derive(Clone, Copy)]
pub(crate) enum HostTransfer {
    Read,
    Write,
}

impl HostTransfer {
    /// The host access `m`'s flags must allow for this transfer.
    pub(crate) fn check_host_access(self, m: &Mem) -> Result<(), cl_int> {
        match self {
            HostTransfer::Read => host_readable(m),
            HostTransfer::Write => host_writable(m),
        }
    }

    /// Moves one row between `storage` at `at` and `host_row`. A write is reported to the
    /// race detector first, so that it counts those bytes as initialised by the host.
    pub(crate) fn move_row(
        self,
        storage: &Buffer,
        at: usize,
        host_row: &mut [u8],
    ) -> Result<(), cl_int> {
        match self {
            HostTransfer::Read => storage.read(at, host_row),
            HostTransfer::Write => {
                crate::launch::buffer_written_by_host(storage.id(), at, host_row.len());
                storage.write(at, host_row)
            }
        }
        .map_err(|_| CL_OUT_OF_RESOURCES)
    }
}

/// `clEnqueueReadBufferRect` and `clEnqueueWriteBufferRect`: one validation and one copy loop.
#[allow(clippy::too_many_arguments)]
fn enqueue_host_rect(
    dir: HostTransfer,
    q: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    [buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch]: [usize; 4],
    ptr: *mut c_void,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> Result<(), cl_int> {
    let (q, m) = queue_and_mem(q, buffer)?;
    let waits = wait_list(Some(&q.context), num, list)?;
    let region = region_of(region)?;
    let b = Rect::new(
        triple(buffer_origin)?,
        region,
        buffer_row_pitch,
        buffer_slice_pitch,
    )?;
    let h = Rect::new(
        triple(host_origin)?,
        region,
        host_row_pitch,
        host_slice_pitch,
    )?;
    check_rect(&m, &b, region)?;
    let hend = h.end(region).ok_or(CL_INVALID_VALUE)?;
    if ptr.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    dir.check_host_access(&m)?;
    let command = match dir {
        HostTransfer::Read => CL_COMMAND_READ_BUFFER_RECT,
        HostTransfer::Write => CL_COMMAND_WRITE_BUFFER_RECT,
    };
    let user = UserPtr(ptr);
    enqueue(
        &q,
        command,
        waits,
        event,
        blocking != 0,
        Box::new(move || {
            let host = host_bytes(user, hend);
            for z in 0..region[2] {
                for y in 0..region[1] {
                    let (at, ho) = (m.offset + b.offset(y, z), h.offset(y, z));
                    dir.move_row(&m.storage, at, &mut host[ho..ho + region[0]])?;
                }
            }
            Ok(())
        }),
    )
}

pub unsafe extern "C" fn clEnqueueReadBufferRect(
    q: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *mut c_void,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueReadBufferRect", || {
        let pitches = [
            buffer_row_pitch,
            buffer_slice_pitch,
            host_row_pitch,
            host_slice_pitch,
        ];
        enqueue_host_rect(
            HostTransfer::Read,
            q,
            buffer,
            blocking,
            buffer_origin,
            host_origin,
            region,
            pitches,
            ptr,
            num,
            list,
            event,
        )
    })
}

pub unsafe extern "C" fn clEnqueueWriteBufferRect(
    q: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *const c_void,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueWriteBufferRect", || {
        let pitches = [
            buffer_row_pitch,
            buffer_slice_pitch,
            host_row_pitch,
            host_slice_pitch,
        ];
        enqueue_host_rect(
            HostTransfer::Write,
            q,
            buffer,
            blocking,
            buffer_origin,
            host_origin,
            region,
            pitches,
            ptr.cast_mut(),
            num,
            list,
            event,
        )
    })
}

pub unsafe extern "C" fn clEnqueueCopyBufferRect(
    q: cl_command_queue,
    src: cl_mem,
    dst: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    src_row_pitch: usize,
    src_slice_pitch: usize,
    dst_row_pitch: usize,
    dst_slice_pitch: usize,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueCopyBufferRect", || {
        let BufferCopyOperands {
            queue: q,
            src: s,
            dst: d,
        } = buffer_copy_operands(q, src, dst)?;
        let waits = wait_list(Some(&q.context), num, list)?;
        let region = region_of(region)?;
        let sr = Rect::new(triple(src_origin)?, region, src_row_pitch, src_slice_pitch)?;
        let dr = Rect::new(triple(dst_origin)?, region, dst_row_pitch, dst_slice_pitch)?;
        check_rect(&s, &sr, region)?;
        check_rect(&d, &dr, region)?;
        if Arc::ptr_eq(&s.storage, &d.storage) {
            if src_row_pitch != dst_row_pitch || src_slice_pitch != dst_slice_pitch {
                return Err(CL_INVALID_VALUE);
            }
            let (s0, s1) = (
                s.offset + sr.offset(0, 0),
                s.offset + sr.end(region).unwrap_or(0),
            );
            let (d0, d1) = (
                d.offset + dr.offset(0, 0),
                d.offset + dr.end(region).unwrap_or(0),
            );
            if s0 < d1 && d0 < s1 {
                return Err(CL_MEM_COPY_OVERLAP);
            }
        }
        enqueue(
            &q,
            CL_COMMAND_COPY_BUFFER_RECT,
            waits,
            event,
            false,
            Box::new(move || {
                for z in 0..region[2] {
                    for y in 0..region[1] {
                        crate::launch::buffer_written_by_host(
                            d.storage.id(),
                            d.offset + dr.offset(y, z),
                            region[0],
                        );
                        d.storage
                            .copy_from(
                                d.offset + dr.offset(y, z),
                                &s.storage,
                                s.offset + sr.offset(y, z),
                                region[0],
                            )
                            .map_err(|_| CL_OUT_OF_RESOURCES)?;
                    }
                }
                Ok(())
            }),
        )
    })
}

/// Maps return a pointer straight into the buffer's memory (the application's own memory
/// for `CL_MEM_USE_HOST_PTR`), which stays valid while the buffer lives; unmap has nothing to
/// write back.
pub unsafe extern "C" fn clEnqueueMapBuffer(
    q: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    map_flags: cl_map_flags,
    offset: usize,
    size: usize,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    call_ptr("clEnqueueMapBuffer", errcode_ret, || {
        let (q, m) = queue_and_mem(q, buffer)?;
        let waits = wait_list(Some(&q.context), num, list)?;
        if size == 0 {
            return Err(CL_INVALID_VALUE);
        }
        check_range(&m, offset, size)?;
        check_map_flags(&m, map_flags)?;
        let p = m.storage.host_ptr().wrapping_add(m.offset + offset);
        m.map_count.fetch_add(1, Ordering::Relaxed);
        // The host may write through the mapping: count the mapped bytes as initialised.
        crate::launch::buffer_written_by_host(m.storage.id(), m.offset + offset, size);
        enqueue(
            &q,
            CL_COMMAND_MAP_BUFFER,
            waits,
            event,
            blocking != 0,
            Box::new(move || {
                drop(m);
                Ok(())
            }),
        )?;
        Ok(p.cast::<c_void>())
    })
}

pub unsafe extern "C" fn clEnqueueUnmapMemObject(
    q: cl_command_queue,
    memobj: cl_mem,
    mapped_ptr: *mut c_void,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueUnmapMemObject", || {
        let (q, m) = queue_and_any_mem(q, memobj)?;
        let waits = wait_list(Some(&q.context), num, list)?;
        // An image over a sub-buffer starts at its descriptor's base in the storage.
        let image_base = m.image.as_ref().map_or(0, |i| i.desc.base as usize);
        let base = m.storage.host_ptr() as usize + m.offset + image_base;
        let p = mapped_ptr as usize;
        if p < base || p >= base + m.size || m.map_count.load(Ordering::Relaxed) == 0 {
            return Err(CL_INVALID_VALUE);
        }
        m.map_count.fetch_sub(1, Ordering::Relaxed);
        enqueue(
            &q,
            CL_COMMAND_UNMAP_MEM_OBJECT,
            waits,
            event,
            false,
            Box::new(move || {
                drop(m);
                Ok(())
            }),
        )
    })
}

pub unsafe extern "C" fn clEnqueueMigrateMemObjects(
    q: cl_command_queue,
    num_mem_objects: cl_uint,
    mem_objects: *const cl_mem,
    flags: cl_mem_migration_flags,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueMigrateMemObjects", || {
        let q = get_queue(q)?;
        let waits = wait_list(Some(&q.context), num, list)?;
        if num_mem_objects == 0 || mem_objects.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        if flags & !(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED) != 0 {
            return Err(CL_INVALID_VALUE);
        }
        let mut objs = Vec::new();
        for &m in slice(mem_objects, num_mem_objects as usize, CL_INVALID_VALUE)? {
            let m = get_mem(m)?;
            if !Arc::ptr_eq(&q.context, &m.context) {
                return Err(CL_INVALID_CONTEXT);
            }
            objs.push(m);
        }
        // One device with host-unified memory: nothing moves.
        enqueue(
            &q,
            CL_COMMAND_MIGRATE_MEM_OBJECTS,
            waits,
            event,
            false,
            Box::new(move || {
                drop(objs);
                Ok(())
            }),
        )
    })
}

pub use queue::Event;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_flag_rules() {
        assert_eq!(check_buffer_flags(0, false), Ok(CL_MEM_READ_WRITE));
        assert_eq!(
            check_buffer_flags(CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, false),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_buffer_flags(CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, true),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_buffer_flags(CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, true),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_buffer_flags(CL_MEM_COPY_HOST_PTR, false),
            Err(CL_INVALID_HOST_PTR)
        );
        assert_eq!(check_buffer_flags(0, true), Err(CL_INVALID_HOST_PTR));
        assert_eq!(
            check_buffer_flags(CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS, false),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(check_buffer_flags(1 << 40, false), Err(CL_INVALID_VALUE));
        assert_eq!(
            check_buffer_flags(
                CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY,
                true
            ),
            Ok(CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY)
        );
    }

    #[test]
    fn sub_buffer_flag_rules() {
        assert_eq!(
            sub_buffer_flags(CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            sub_buffer_flags(CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            sub_buffer_flags(CL_MEM_READ_WRITE, CL_MEM_USE_HOST_PTR),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            sub_buffer_flags(CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS, 0),
            Ok(CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS)
        );
        assert_eq!(
            sub_buffer_flags(
                CL_MEM_HOST_NO_ACCESS | CL_MEM_READ_WRITE,
                CL_MEM_HOST_READ_ONLY
            ),
            Err(CL_INVALID_VALUE)
        );
    }

    #[test]
    fn rect_geometry() {
        let r = Rect::new([1, 2, 0], [4, 3, 2], 0, 0);
        assert!(r.is_ok());
        if let Ok(r) = r {
            assert_eq!((r.row_pitch, r.slice_pitch), (4, 12));
            assert_eq!(r.offset(0, 1), 12 + 8 + 1);
        }
        assert_eq!(
            Rect::new([0; 3], [4, 3, 1], 2, 0).map(|_| ()),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            Rect::new([0; 3], [4, 3, 1], 4, 13).map(|_| ()),
            Err(CL_INVALID_VALUE)
        );
        // Origins near usize::MAX are out of range, not an overflow.
        let huge = Rect::new([usize::MAX, 0, 0], [4, 1, 1], 0, 0);
        assert_eq!(huge.map(|r| r.end([4, 1, 1])), Ok(None));
    }

    /// piglit's cl-custom-use-sub-buffer-in-kernel asks for origin 100 in a 1000-byte
    /// buffer; with CL_DEVICE_MEM_BASE_ADDR_ALIGN at its specified minimum (1024 bits, 128
    /// bytes) that origin is misaligned, and multiples of 128 bytes are accepted.
    #[test]
    fn sub_buffer_origins_follow_the_base_address_alignment() {
        let mut err = 0;
        // SAFETY: valid handles; regions point to live cl_buffer_region values.
        unsafe {
            let c = context::test_context();
            let b = clCreateBuffer(c, CL_MEM_READ_WRITE, 1000, std::ptr::null_mut(), &mut err);
            assert_eq!(err, CL_SUCCESS);
            let sub = |origin: usize, size: usize, err: &mut cl_int| {
                let reg = cl_buffer_region { origin, size };
                clCreateSubBuffer(
                    b,
                    CL_MEM_READ_WRITE,
                    CL_BUFFER_CREATE_TYPE_REGION,
                    (&reg as *const cl_buffer_region).cast(),
                    err,
                )
            };
            assert!(sub(100, 800, &mut err).is_null());
            assert_eq!(err, CL_MISALIGNED_SUB_BUFFER_OFFSET);
            let align = MEM_BASE_ADDR_ALIGN_BITS as usize / 8;
            assert_eq!(align, 128);
            let s = sub(align, 800, &mut err);
            assert_eq!(err, CL_SUCCESS);
            let mut offset = 0usize;
            assert_eq!(
                clGetMemObjectInfo(
                    s,
                    CL_MEM_OFFSET,
                    8,
                    (&mut offset as *mut usize).cast(),
                    std::ptr::null_mut()
                ),
                CL_SUCCESS
            );
            assert_eq!(offset, 128);
            // In bounds is checked too: 128 + 900 > 1000.
            assert!(sub(align, 900, &mut err).is_null());
            assert_eq!(err, CL_INVALID_VALUE);
            for m in [s, b] {
                assert_eq!(clReleaseMemObject(m), CL_SUCCESS);
            }
            assert_eq!(context::clReleaseContext(c), CL_SUCCESS);
        }
    }

    #[test]
    fn write_read_copy_fill_through_a_queue() {
        let d = crate::platform::device_id();
        let mut err = 0;
        // SAFETY: valid handles and buffers throughout.
        unsafe {
            let c = context::test_context();
            let q = queue::clCreateCommandQueue(c, d, 0, &mut err);
            assert_eq!(err, CL_SUCCESS);
            let mut host = [1u8, 2, 3, 4, 5, 6, 7, 8];
            let a = clCreateBuffer(
                c,
                CL_MEM_COPY_HOST_PTR,
                8,
                host.as_mut_ptr().cast(),
                &mut err,
            );
            assert_eq!(err, CL_SUCCESS);
            let b = clCreateBuffer(
                c,
                CL_MEM_USE_HOST_PTR,
                8,
                host.as_mut_ptr().cast(),
                &mut err,
            );
            assert_eq!(err, CL_SUCCESS);
            let pat = 0xABu8;
            assert_eq!(
                clEnqueueFillBuffer(
                    q,
                    b,
                    (&pat as *const u8).cast(),
                    1,
                    4,
                    4,
                    0,
                    std::ptr::null(),
                    std::ptr::null_mut()
                ),
                CL_SUCCESS
            );
            assert_eq!(
                clEnqueueCopyBuffer(q, a, b, 0, 0, 2, 0, std::ptr::null(), std::ptr::null_mut()),
                CL_SUCCESS
            );
            assert_eq!(
                clEnqueueCopyBuffer(q, a, a, 0, 1, 2, 0, std::ptr::null(), std::ptr::null_mut()),
                CL_MEM_COPY_OVERLAP
            );
            let mut outb = [0u8; 8];
            assert_eq!(
                clEnqueueReadBuffer(
                    q,
                    b,
                    CL_TRUE,
                    0,
                    8,
                    outb.as_mut_ptr().cast(),
                    0,
                    std::ptr::null(),
                    std::ptr::null_mut()
                ),
                CL_SUCCESS
            );
            assert_eq!(outb, [1, 2, 3, 4, 0xAB, 0xAB, 0xAB, 0xAB]);
            assert_eq!(
                clEnqueueReadBuffer(
                    q,
                    b,
                    CL_TRUE,
                    4,
                    8,
                    outb.as_mut_ptr().cast(),
                    0,
                    std::ptr::null(),
                    std::ptr::null_mut()
                ),
                CL_INVALID_VALUE
            );
            // Sub-buffers need aligned origins.
            let reg = cl_buffer_region { origin: 4, size: 4 };
            let s = clCreateSubBuffer(
                a,
                0,
                CL_BUFFER_CREATE_TYPE_REGION,
                (&reg as *const cl_buffer_region).cast(),
                &mut err,
            );
            assert!(s.is_null());
            assert_eq!(err, CL_MISALIGNED_SUB_BUFFER_OFFSET);
            // Host access flags are enforced.
            let h = clCreateBuffer(c, CL_MEM_HOST_NO_ACCESS, 8, std::ptr::null_mut(), &mut err);
            assert_eq!(
                clEnqueueReadBuffer(
                    q,
                    h,
                    CL_TRUE,
                    0,
                    8,
                    outb.as_mut_ptr().cast(),
                    0,
                    std::ptr::null(),
                    std::ptr::null_mut()
                ),
                CL_INVALID_OPERATION
            );
            // Map/unmap.
            let p = clEnqueueMapBuffer(
                q,
                a,
                CL_TRUE,
                CL_MAP_READ,
                2,
                2,
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
                &mut err,
            );
            assert_eq!(err, CL_SUCCESS);
            assert_eq!(*p.cast::<u8>(), 3);
            assert_eq!(
                clEnqueueUnmapMemObject(q, a, p, 0, std::ptr::null(), std::ptr::null_mut()),
                CL_SUCCESS
            );
            assert_eq!(
                clEnqueueUnmapMemObject(q, a, p, 0, std::ptr::null(), std::ptr::null_mut()),
                CL_INVALID_VALUE
            );
            assert_eq!(clReleaseMemObject(q.cast()), CL_INVALID_MEM_OBJECT);
            for m in [a, b, h] {
                assert_eq!(clReleaseMemObject(m), CL_SUCCESS);
            }
            assert_eq!(queue::clFinish(q), CL_SUCCESS);
            assert_eq!(queue::clReleaseCommandQueue(q), CL_SUCCESS);
            assert_eq!(context::clReleaseContext(c), CL_SUCCESS);
        }
    }
}
