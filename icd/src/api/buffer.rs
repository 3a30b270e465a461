//! The buffer entry points: buffers and sub-buffers, and the commands that move their bytes.
#![allow(clippy::missing_safety_doc, clippy::too_many_arguments)] // entry points: see the spec

use crate::api::entry::{call, call_ptr};
use crate::api::event::wait_list;
use crate::api::info::{properties, slice};
use crate::api::mem::{
    check_buffer_flags, check_host_access, check_map_flags, host_readable, host_writable,
    queue_and_any_mem, region_of, sub_buffer_flags, triple,
};
use crate::api::queue::enqueue;
use crate::consts::*;
use crate::core::context;
use crate::core::mem::{get_mem, host_bytes, rects_overlap, HostTransfer, Mapping, Mem, Rect};
use crate::core::object::{self, Ref};
use crate::core::platform::{MAX_ALLOC, MEM_BASE_ADDR_ALIGN_BITS};
use crate::core::queue::Queue;
use crate::core::UserPtr;
use crate::types::*;
use std::ffi::c_void;
use std::sync::Arc;

fn create_buffer(
    context: cl_context,
    props: Vec<cl_mem_properties>,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
) -> Result<cl_mem, cl_int> {
    let ctx = context::get(context)?;
    let flags = check_buffer_flags(flags, !host_ptr.is_null())?;
    // CL_INVALID_BUFFER_SIZE if size is 0, or if size is greater than
    // CL_DEVICE_MAX_MEM_ALLOC_SIZE for all devices in context.
    if size == 0 || size as u64 > MAX_ALLOC {
        return Err(CL_INVALID_BUFFER_SIZE);
    }
    let copy = if flags & CL_MEM_COPY_HOST_PTR != 0 {
        Some(slice(host_ptr.cast::<u8>(), size, CL_INVALID_HOST_PTR)?)
    } else {
        None
    };
    let m = Mem::new_buffer(ctx, flags, size, UserPtr(host_ptr), copy, props)?;
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
        // CL_INVALID_PROPERTY if a property name in properties is not a supported property
        // name (this device supports none).
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
        // CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object or is a sub-buffer
        // object.
        if parent.parent.is_some() || parent.image.is_some() {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        let flags = sub_buffer_flags(parent.flags, flags)?;
        // CL_INVALID_VALUE if the value specified in buffer_create_type is not valid, or if
        // value(s) specified in buffer_create_info (for a given buffer_create_type) is not
        // valid or if buffer_create_info is NULL.
        if buffer_create_type != CL_BUFFER_CREATE_TYPE_REGION || buffer_create_info.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: CL_BUFFER_CREATE_TYPE_REGION: the info points to a cl_buffer_region (spec).
        let region = unsafe {
            buffer_create_info
                .cast::<cl_buffer_region>()
                .read_unaligned()
        };
        // CL_INVALID_BUFFER_SIZE if the size field of the cl_buffer_region structure passed
        // in buffer_create_info is 0.
        if region.size == 0 {
            return Err(CL_INVALID_BUFFER_SIZE);
        }
        // CL_INVALID_VALUE if the region specified by the cl_buffer_region structure passed
        // in buffer_create_info is out of bounds in buffer.
        match region.origin.checked_add(region.size) {
            Some(end) if end <= parent.size => {}
            _ => return Err(CL_INVALID_VALUE),
        }
        if region.origin % (MEM_BASE_ADDR_ALIGN_BITS as usize / 8) != 0 {
            return Err(CL_MISALIGNED_SUB_BUFFER_OFFSET);
        }
        let m = Mem::new_sub_buffer(&parent, flags, region.origin, region.size);
        Ok(object::into_handle(m))
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

/// CL_INVALID_VALUE if the region being read or written specified by (offset, size) is out of
/// bounds.
fn check_range(m: &Mem, offset: usize, size: usize) -> Result<(), cl_int> {
    match offset.checked_add(size) {
        Some(end) if end <= m.size => Ok(()),
        _ => Err(CL_INVALID_VALUE),
    }
}

fn check_rect(m: &Mem, r: &Rect, region: [usize; 3]) -> Result<(), cl_int> {
    match r.end(region) {
        Some(e) if e <= m.size => Ok(()),
        _ => Err(CL_INVALID_VALUE),
    }
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
            Box::new(move || m.read(offset, host_bytes(dst, size))),
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
            Box::new(move || m.write(offset, host_bytes(src, size))),
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
            Box::new(move || d.copy_from(dst_offset, &s, src_offset, size)),
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
            // CL_INVALID_VALUE if pattern is NULL or if pattern_size is 0 or if pattern_size
            // is not one of {1, 2, 4, 8, 16, 32, 64, 128}, or if offset and size are not a
            // multiple of pattern_size.
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
            Box::new(move || m.fill(offset, size, &pat)),
        )
    })
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
    check_host_access(dir, &m)?;
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
        Box::new(move || m.transfer_rect(dir, &b, host_bytes(user, hend), &h, region)),
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
            let (s0, d0) = (s.offset + sr.offset(0, 0), d.offset + dr.offset(0, 0));
            if rects_overlap(s0, d0, region, sr.row_pitch, sr.slice_pitch) {
                return Err(CL_MEM_COPY_OVERLAP);
            }
        }
        enqueue(
            &q,
            CL_COMMAND_COPY_BUFFER_RECT,
            waits,
            event,
            false,
            Box::new(move || d.copy_rect_from(&dr, &s, &sr, region)),
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
        let mapping = Mapping::new(vec![(m.offset + offset, size)], map_flags);
        let p = m.map(offset, size, mapping.clone());
        enqueue(
            &q,
            CL_COMMAND_MAP_BUFFER,
            waits,
            event,
            blocking != 0,
            Box::new(move || {
                mapping.mapped(&m);
                drop(m);
                Ok(())
            }),
        )?;
        Ok(p.cast::<c_void>())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::mem::{clEnqueueUnmapMemObject, clGetMemObjectInfo, clReleaseMemObject};
    use crate::api::{context, queue};

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
        let d = crate::core::platform::device_id();
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
