//! The image entry points: creation, queries and the commands that move texels (images
//! themselves are [`crate::core::image`]'s).
#![allow(clippy::missing_safety_doc, clippy::too_many_arguments)] // entry points: see the spec

use crate::api::entry::{call, call_ptr};
use crate::api::event::wait_list;
use crate::api::info::{out, properties, slice, v, write_info};
use crate::api::mem::{
    check_buffer_flags, check_host_access, check_map_flags, queue_and_any_mem, region_of,
    sub_buffer_flags, triple,
};
use crate::api::queue::enqueue;
use crate::consts::*;
use crate::core::context;
use crate::core::event::Event;
use crate::core::image::{
    self, check_format, dim_of, image_side, info, layout, new_image, packed_buffer_side, ImageInfo,
    ImageSpec, Side,
};
use crate::core::mem::{get_mem, host_bytes, pitch_or_packed, HostTransfer, Mapping, Mem};
use crate::core::object::{self, Ref};
use crate::core::queue::Queue;
use crate::core::UserPtr;
use crate::types::*;
use shadowcl_interpreter::{ImageDim, ImageFormat};
use std::ffi::c_void;
use std::sync::Arc;

/// The image behind a handle (`CL_INVALID_MEM_OBJECT` for buffers and garbage).
fn get_image(m: cl_mem) -> Result<Ref<Mem>, cl_int> {
    let m = get_mem(m)?;
    if m.image.is_none() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    Ok(m)
}

fn create_image(
    context: cl_context,
    props: Vec<cl_mem_properties>,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
) -> Result<cl_mem, cl_int> {
    let ctx = context::get(context)?;
    if image_format.is_null() {
        return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    // SAFETY: a non-NULL image_format points to a cl_image_format (spec).
    let fmt = unsafe { image_format.read_unaligned() };
    if image_desc.is_null() {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    // SAFETY: a non-NULL image_desc points to a cl_image_desc (spec).
    let d = unsafe { image_desc.read_unaligned() };
    // A 2-D image over a buffer (cl_khr_image2d_from_buffer, optional in OpenCL 3.0): the
    // device does not support it (CL_DEVICE_IMAGE_PITCH_ALIGNMENT is 0).
    if d.image_type == CL_MEM_OBJECT_IMAGE2D && !d.buffer.is_null() {
        return Err(CL_INVALID_OPERATION);
    }
    let is_buffer_image = d.image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER;
    // A 1-D buffer image inherits access and host flags from its buffer.
    let buffer = if is_buffer_image && !d.buffer.is_null() {
        let b = get_mem(d.buffer).map_err(|_| CL_INVALID_IMAGE_DESCRIPTOR)?;
        if b.image.is_some() || !Arc::ptr_eq(&b.context, &ctx) {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        Some(b)
    } else {
        None
    };
    let flags = match &buffer {
        Some(b) => {
            if !host_ptr.is_null()
                || flags & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0
            {
                return Err(CL_INVALID_VALUE);
            }
            sub_buffer_flags(b.flags, flags)?
        }
        None => check_buffer_flags(flags, !host_ptr.is_null())?,
    };
    let format = check_format(&fmt)?;
    if !format.is_supported() {
        return Err(CL_IMAGE_FORMAT_NOT_SUPPORTED);
    }
    let (desc, host_len) = layout(format, &d, !host_ptr.is_null())?;
    let copy = if flags & CL_MEM_COPY_HOST_PTR != 0 && buffer.is_none() {
        Some(slice(host_ptr.cast::<u8>(), host_len, CL_INVALID_HOST_PTR)?)
    } else {
        None
    };
    let spec = ImageSpec {
        format: fmt,
        mem_type: d.image_type,
        desc,
        host_len,
        buffer,
    };
    let m = new_image(ctx, flags, props, UserPtr(host_ptr), copy, spec)?;
    Ok(object::into_handle(m))
}

pub unsafe extern "C" fn clCreateImage(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    call_ptr("clCreateImage", errcode_ret, || {
        create_image(
            context,
            Vec::new(),
            flags,
            image_format,
            image_desc,
            host_ptr,
        )
    })
}

pub unsafe extern "C" fn clCreateImageWithProperties(
    context: cl_context,
    props: *const cl_mem_properties,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    call_ptr("clCreateImageWithProperties", errcode_ret, || {
        context::get(context)?;
        if !properties(props)?.is_empty() {
            return Err(CL_INVALID_PROPERTY);
        }
        let list = if props.is_null() { Vec::new() } else { vec![0] };
        create_image(context, list, flags, image_format, image_desc, host_ptr)
    })
}

/// The OpenCL 1.1 entry points have no CL_INVALID_IMAGE_DESCRIPTOR: bad sizes and pitches
/// are CL_INVALID_IMAGE_SIZE there.
fn legacy(r: Result<cl_mem, cl_int>) -> Result<cl_mem, cl_int> {
    r.map_err(|e| {
        if e == CL_INVALID_IMAGE_DESCRIPTOR {
            CL_INVALID_IMAGE_SIZE
        } else {
            e
        }
    })
}

pub(crate) fn desc_of(
    t: cl_mem_object_type,
    size: [usize; 3],
    pitches: [usize; 2],
) -> cl_image_desc {
    cl_image_desc {
        image_type: t,
        image_width: size[0],
        image_height: size[1],
        image_depth: size[2],
        image_array_size: 0,
        image_row_pitch: pitches[0],
        image_slice_pitch: pitches[1],
        num_mip_levels: 0,
        num_samples: 0,
        buffer: std::ptr::null_mut(),
    }
}

pub unsafe extern "C" fn clCreateImage2D(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_width: usize,
    image_height: usize,
    image_row_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    call_ptr("clCreateImage2D", errcode_ret, || {
        let d = desc_of(
            CL_MEM_OBJECT_IMAGE2D,
            [image_width, image_height, 0],
            [image_row_pitch, 0],
        );
        legacy(create_image(
            context,
            Vec::new(),
            flags,
            image_format,
            &d,
            host_ptr,
        ))
    })
}

pub unsafe extern "C" fn clCreateImage3D(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_width: usize,
    image_height: usize,
    image_depth: usize,
    image_row_pitch: usize,
    image_slice_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    call_ptr("clCreateImage3D", errcode_ret, || {
        // 1.1: a 3-D image needs a depth of at least 2.
        if image_depth == 1 {
            return Err(CL_INVALID_IMAGE_SIZE);
        }
        let d = desc_of(
            CL_MEM_OBJECT_IMAGE3D,
            [image_width, image_height, image_depth],
            [image_row_pitch, image_slice_pitch],
        );
        legacy(create_image(
            context,
            Vec::new(),
            flags,
            image_format,
            &d,
            host_ptr,
        ))
    })
}

pub unsafe extern "C" fn clGetSupportedImageFormats(
    context: cl_context,
    flags: cl_mem_flags,
    image_type: cl_mem_object_type,
    num_entries: cl_uint,
    image_formats: *mut cl_image_format,
    num_image_formats: *mut cl_uint,
) -> cl_int {
    call("clGetSupportedImageFormats", || {
        context::get(context)?;
        let host = CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR | CL_MEM_KERNEL_READ_AND_WRITE;
        check_buffer_flags(flags & !host, false)?;
        dim_of(image_type).ok_or(CL_INVALID_VALUE)?;
        if num_entries == 0 && !image_formats.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS is 0: no format can be read and written by
        // one kernel (OpenCL 3.0 makes read-write images optional).
        let read_write = flags & CL_MEM_KERNEL_READ_AND_WRITE != 0;
        let all: Vec<cl_image_format> = ImageFormat::all_supported()
            .into_iter()
            .filter(|_| !read_write)
            .map(|f| cl_image_format {
                image_channel_order: f.order + CL_R,
                image_channel_data_type: f.data_type + CL_SNORM_INT8,
            })
            .collect();
        if !image_formats.is_null() {
            for (i, f) in all.iter().take(num_entries as usize).enumerate() {
                // SAFETY: image_formats has num_entries entries (spec); i < num_entries.
                unsafe { image_formats.add(i).write_unaligned(*f) };
            }
        }
        out(num_image_formats, all.len() as cl_uint);
        Ok(())
    })
}

pub unsafe extern "C" fn clGetImageInfo(
    image: cl_mem,
    param_name: cl_image_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetImageInfo", || {
        let m = get_image(image)?;
        let i = info(&m)?;
        let d = &i.desc;
        let arrayed = matches!(d.dim, ImageDim::D1Array | ImageDim::D2Array);
        let zero_unless = |c: bool, x: u64| if c { x as usize } else { 0 };
        let answer = match param_name {
            CL_IMAGE_FORMAT => v(&i.format),
            CL_IMAGE_ELEMENT_SIZE => v(&i.element_size()),
            CL_IMAGE_ROW_PITCH => v(&(d.row_pitch as usize)),
            CL_IMAGE_SLICE_PITCH => v(&zero_unless(
                arrayed || d.dim == ImageDim::D3,
                d.slice_pitch,
            )),
            CL_IMAGE_WIDTH => v(&(d.width as usize)),
            CL_IMAGE_HEIGHT => v(&zero_unless(
                matches!(d.dim, ImageDim::D2 | ImageDim::D2Array | ImageDim::D3),
                d.height,
            )),
            CL_IMAGE_DEPTH => v(&zero_unless(d.dim == ImageDim::D3, d.depth)),
            CL_IMAGE_ARRAY_SIZE => v(&zero_unless(arrayed, d.array_size)),
            CL_IMAGE_BUFFER => v(&i
                .buffer
                .as_ref()
                .map(object::handle::<Mem>)
                .unwrap_or(std::ptr::null_mut())),
            CL_IMAGE_NUM_MIP_LEVELS | CL_IMAGE_NUM_SAMPLES => v(&0u32),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

/// `origin` and `region` in the application's terms → memory coordinates (x, y, z), checked
/// against the image (a 1-D array's layer is the second coordinate, stored as z).
fn image_box(
    i: &ImageInfo,
    origin: *const usize,
    region: *const usize,
) -> Result<([u64; 3], [u64; 3]), cl_int> {
    let o = triple(origin)?;
    let r = region_of(region)?;
    let d = &i.desc;
    let used = match d.dim {
        ImageDim::D1 | ImageDim::D1Buffer => 1,
        ImageDim::D1Array | ImageDim::D2 => 2,
        _ => 3,
    };
    for k in used..3 {
        if o[k] != 0 || r[k] != 1 {
            return Err(CL_INVALID_VALUE);
        }
    }
    // A 1-D array's layer is its second API coordinate and its memory slice: the box has
    // one row per layer (`unused` is 0 for the origin, 1 for the region).
    let to_mem = |a: [usize; 3], unused: u64| -> [u64; 3] {
        if d.dim == ImageDim::D1Array {
            [a[0] as u64, unused, a[1] as u64]
        } else {
            a.map(|x| x as u64)
        }
    };
    let (o, r) = (to_mem(o, 0), to_mem(r, 1));
    let ext = d.extent();
    for k in 0..3 {
        match o[k].checked_add(r[k]) {
            Some(e) if e <= ext[k] => {}
            _ => return Err(CL_INVALID_VALUE),
        }
    }
    Ok((o, r))
}

/// Host row and slice pitch of a read/write: defaults and checks of the specification.
fn host_pitches(
    i: &ImageInfo,
    region: [u64; 3],
    row: usize,
    slice: usize,
) -> Result<(usize, usize), cl_int> {
    let row = pitch_or_packed(row, region[0] as usize * i.element_size())?;
    let layered = matches!(
        i.desc.dim,
        ImageDim::D3 | ImageDim::D2Array | ImageDim::D1Array
    );
    // The application's pitch times the region: too large for any host memory.
    let min_slice = row
        .checked_mul(region[1] as usize)
        .ok_or(CL_INVALID_VALUE)?;
    if !layered {
        if slice != 0 {
            return Err(CL_INVALID_VALUE);
        }
        return Ok((row, min_slice));
    }
    Ok((row, pitch_or_packed(slice, min_slice)?))
}

/// Bytes a host rectangle of `region` with these pitches spans; `CL_INVALID_VALUE` when the
/// application's pitches make that more than any host memory.
fn host_span(
    region: [u64; 3],
    row_bytes: usize,
    row: usize,
    slice: usize,
) -> Result<usize, cl_int> {
    let slices = (region[2] as usize - 1).checked_mul(slice);
    let rows = (region[1] as usize - 1).checked_mul(row);
    slices
        .zip(rows)
        .and_then(|(s, r)| s.checked_add(r)?.checked_add(row_bytes))
        .ok_or(CL_INVALID_VALUE)
}

fn image_host_transfer(
    dir: HostTransfer,
    q: cl_command_queue,
    image: cl_mem,
    blocking: cl_bool,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *mut c_void,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> Result<(), cl_int> {
    let (q, m) = queue_and_any_mem(q, image)?;
    let i = info(&m)?;
    let waits = wait_list(Some(&q.context), num, list)?;
    let (o, r) = image_box(i, origin, region)?;
    let (row, slice) = host_pitches(i, r, row_pitch, slice_pitch)?;
    if ptr.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    check_host_access(dir, &m)?;
    let command = match dir {
        HostTransfer::Read => CL_COMMAND_READ_IMAGE,
        HostTransfer::Write => CL_COMMAND_WRITE_IMAGE,
    };
    let row_bytes = r[0] as usize * i.element_size();
    let span = host_span(r, row_bytes, row, slice)?;
    let user = UserPtr(ptr);
    let m2 = m.clone();
    enqueue(
        &q,
        command,
        waits,
        event,
        blocking != 0,
        Box::new(move || image::transfer(&m2, dir, o, r, host_bytes(user, span), (row, slice))),
    )
}

pub unsafe extern "C" fn clEnqueueReadImage(
    q: cl_command_queue,
    image: cl_mem,
    blocking_read: cl_bool,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *mut c_void,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueReadImage", || {
        image_host_transfer(
            HostTransfer::Read,
            q,
            image,
            blocking_read,
            origin,
            region,
            row_pitch,
            slice_pitch,
            ptr,
            num,
            list,
            event,
        )
    })
}

pub unsafe extern "C" fn clEnqueueWriteImage(
    q: cl_command_queue,
    image: cl_mem,
    blocking_write: cl_bool,
    origin: *const usize,
    region: *const usize,
    input_row_pitch: usize,
    input_slice_pitch: usize,
    ptr: *const c_void,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueWriteImage", || {
        image_host_transfer(
            HostTransfer::Write,
            q,
            image,
            blocking_write,
            origin,
            region,
            input_row_pitch,
            input_slice_pitch,
            ptr.cast_mut(),
            num,
            list,
            event,
        )
    })
}

/// Copies `r[1] * r[2]` rows of `row_bytes` between two memory objects.
fn enqueue_copy(
    q: &Ref<Queue>,
    command: cl_command_type,
    waits: Vec<Ref<Event>>,
    event: *mut cl_event,
    src: Side,
    dst: Side,
    r: [u64; 3],
    row_bytes: usize,
) -> Result<(), cl_int> {
    enqueue(
        q,
        command,
        waits,
        event,
        false,
        Box::new(move || image::copy_rows(&src, &dst, r, row_bytes)),
    )
}

fn same_context(q: &Ref<Queue>, m: &Mem) -> Result<(), cl_int> {
    if Arc::ptr_eq(&q.context, &m.context) {
        Ok(())
    } else {
        Err(CL_INVALID_CONTEXT)
    }
}

pub unsafe extern "C" fn clEnqueueCopyImage(
    q: cl_command_queue,
    src_image: cl_mem,
    dst_image: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueCopyImage", || {
        let (q, s) = queue_and_any_mem(q, src_image)?;
        let d = get_mem(dst_image)?;
        let (si, di) = (info(&s)?, info(&d)?);
        same_context(&q, &d)?;
        let waits = wait_list(Some(&q.context), num, list)?;
        if si.desc.format != di.desc.format {
            return Err(CL_IMAGE_FORMAT_MISMATCH);
        }
        let (so, r) = image_box(si, src_origin, region)?;
        let (dso, dr) = image_box(di, dst_origin, region)?;
        if r != dr {
            return Err(CL_INVALID_VALUE);
        }
        if Arc::ptr_eq(&s.storage, &d.storage)
            && (0..3).all(|k| so[k] < dso[k] + r[k] && dso[k] < so[k] + r[k])
        {
            return Err(CL_MEM_COPY_OVERLAP);
        }
        let row_bytes = r[0] as usize * si.element_size();
        let (src, dst) = (image_side(&s, so)?, image_side(&d, dso)?);
        enqueue_copy(
            &q,
            CL_COMMAND_COPY_IMAGE,
            waits,
            event,
            src,
            dst,
            r,
            row_bytes,
        )
    })
}

pub unsafe extern "C" fn clEnqueueCopyImageToBuffer(
    q: cl_command_queue,
    src_image: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueCopyImageToBuffer", || {
        let (q, s) = queue_and_any_mem(q, src_image)?;
        let d = get_mem(dst_buffer)?;
        let si = info(&s)?;
        if d.image.is_some() {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        same_context(&q, &d)?;
        let waits = wait_list(Some(&q.context), num, list)?;
        let (so, r) = image_box(si, src_origin, region)?;
        let row_bytes = r[0] as usize * si.element_size();
        let dst = packed_buffer_side(&d, dst_offset, r, row_bytes)?;
        let src = image_side(&s, so)?;
        enqueue_copy(
            &q,
            CL_COMMAND_COPY_IMAGE_TO_BUFFER,
            waits,
            event,
            src,
            dst,
            r,
            row_bytes,
        )
    })
}

pub unsafe extern "C" fn clEnqueueCopyBufferToImage(
    q: cl_command_queue,
    src_buffer: cl_mem,
    dst_image: cl_mem,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueCopyBufferToImage", || {
        let (q, s) = queue_and_any_mem(q, src_buffer)?;
        let d = get_mem(dst_image)?;
        let di = info(&d)?;
        if s.image.is_some() {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        same_context(&q, &d)?;
        let waits = wait_list(Some(&q.context), num, list)?;
        let (dso, r) = image_box(di, dst_origin, region)?;
        let row_bytes = r[0] as usize * di.element_size();
        let src = packed_buffer_side(&s, src_offset, r, row_bytes)?;
        let dst = image_side(&d, dso)?;
        enqueue_copy(
            &q,
            CL_COMMAND_COPY_BUFFER_TO_IMAGE,
            waits,
            event,
            src,
            dst,
            r,
            row_bytes,
        )
    })
}

pub unsafe extern "C" fn clEnqueueFillImage(
    q: cl_command_queue,
    image: cl_mem,
    fill_color: *const c_void,
    origin: *const usize,
    region: *const usize,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueFillImage", || {
        let (q, m) = queue_and_any_mem(q, image)?;
        let i = info(&m)?;
        let waits = wait_list(Some(&q.context), num, list)?;
        if fill_color.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let (o, r) = image_box(i, origin, region)?;
        // float4 for normalized and float formats, int4 / uint4 for integer ones: all 16 bytes.
        let c = slice(fill_color.cast::<u32>(), 4, CL_INVALID_VALUE)?;
        let texel = image::fill_texel(i, [c[0], c[1], c[2], c[3]]);
        let m2 = m.clone();
        enqueue(
            &q,
            CL_COMMAND_FILL_IMAGE,
            waits,
            event,
            false,
            Box::new(move || image::fill(&m2, o, r, &texel)),
        )
    })
}

/// Maps point straight into the image's storage (its layout's pitches are returned), as
/// buffer maps do; `clEnqueueUnmapMemObject` unmaps both.
pub unsafe extern "C" fn clEnqueueMapImage(
    q: cl_command_queue,
    image: cl_mem,
    blocking_map: cl_bool,
    map_flags: cl_map_flags,
    origin: *const usize,
    region: *const usize,
    image_row_pitch: *mut usize,
    image_slice_pitch: *mut usize,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    call_ptr("clEnqueueMapImage", errcode_ret, || {
        let (q, m) = queue_and_any_mem(q, image)?;
        let i = info(&m)?;
        let waits = wait_list(Some(&q.context), num, list)?;
        let (o, r) = image_box(i, origin, region)?;
        if image_row_pitch.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let layered = matches!(
            i.desc.dim,
            ImageDim::D3 | ImageDim::D2Array | ImageDim::D1Array
        );
        if layered && image_slice_pitch.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        check_map_flags(&m, map_flags)?;
        let d = i.desc;
        let start = d.offset(o) as usize;
        let end = d.offset([o[0] + r[0] - 1, o[1] + r[1] - 1, o[2] + r[2] - 1]) as usize
            + i.element_size();
        out(image_row_pitch, d.row_pitch as usize);
        if !image_slice_pitch.is_null() {
            out(
                image_slice_pitch,
                if layered { d.slice_pitch as usize } else { 0 },
            );
        }
        let row_bytes = r[0] as usize * i.element_size();
        let rows = (0..r[2])
            .flat_map(|z| (0..r[1]).map(move |y| (y, z)))
            .map(|(y, z)| (d.offset([o[0], o[1] + y, o[2] + z]) as usize, row_bytes))
            .collect();
        let mapping = Mapping::new(rows, map_flags);
        let p = m.map(start, end - start, mapping.clone());
        enqueue(
            &q,
            CL_COMMAND_MAP_IMAGE,
            waits,
            event,
            blocking_map != 0,
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
    use crate::api::context;
    use crate::core::image::IMAGE2D_MAX;

    fn fmt(o: u32, t: u32) -> cl_image_format {
        cl_image_format {
            image_channel_order: o,
            image_channel_data_type: t,
        }
    }

    #[test]
    fn layouts_and_pitches() {
        let f = ImageFormat {
            order: CL_RGBA - CL_R,
            data_type: CL_FLOAT - CL_SNORM_INT8,
        };
        let mut d = desc_of(CL_MEM_OBJECT_IMAGE2D, [4, 3, 0], [0, 0]);
        let (l, len) = layout(f, &d, false).unwrap();
        assert_eq!((l.row_pitch, len), (64, 192));
        d.image_row_pitch = 80;
        assert_eq!(
            layout(f, &d, false).map(|_| ()),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        assert_eq!(
            layout(f, &d, true).map(|(l, n)| (l.row_pitch, n)),
            Ok((80, 240))
        );
        d.image_row_pitch = 60;
        assert_eq!(
            layout(f, &d, true).map(|_| ()),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        let mut a = desc_of(CL_MEM_OBJECT_IMAGE1D_ARRAY, [4, 0, 0], [0, 0]);
        a.image_array_size = 5;
        let (l, len) = layout(f, &a, true).unwrap();
        assert_eq!((l.extent(), l.slice_pitch, len), ([4, 1, 5], 64, 320));
        let big = desc_of(CL_MEM_OBJECT_IMAGE2D, [IMAGE2D_MAX + 1, 1, 0], [0, 0]);
        assert_eq!(
            layout(f, &big, false).map(|_| ()),
            Err(CL_INVALID_IMAGE_SIZE)
        );
        let zero = desc_of(CL_MEM_OBJECT_IMAGE3D, [4, 4, 0], [0, 0]);
        assert_eq!(
            layout(f, &zero, false).map(|_| ()),
            Err(CL_INVALID_IMAGE_SIZE)
        );
        let bad = desc_of(0x1234, [4, 4, 0], [0, 0]);
        assert_eq!(
            layout(f, &bad, false).map(|_| ()),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        // A 1-D buffer image may state its one row's pitch (CTS kernel_image_methods), within
        // the usual checks; not a slice pitch.
        let mut one = desc_of(CL_MEM_OBJECT_IMAGE1D_BUFFER, [4, 0, 0], [64, 0]);
        one.buffer = std::ptr::NonNull::<c_void>::dangling().as_ptr() as cl_mem;
        assert_eq!(layout(f, &one, false).map(|(l, _)| l.row_pitch), Ok(64));
        one.image_row_pitch = 60;
        assert_eq!(
            layout(f, &one, false).map(|_| ()),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        (one.image_row_pitch, one.image_slice_pitch) = (64, 64);
        assert_eq!(
            layout(f, &one, false).map(|_| ()),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
    }

    /// A 1-D buffer image over a sub-buffer sees the sub-buffer's bytes, through host reads
    /// and maps, and shares them with the buffer.
    #[test]
    fn buffer_image_over_a_sub_buffer() {
        let d = crate::core::platform::device_id();
        let mut err = 0;
        // SAFETY: valid pointers to live values throughout.
        unsafe {
            let c = context::test_context();
            let q = crate::api::queue::clCreateCommandQueue(c, d, 0, &mut err);
            let mut bytes: Vec<u8> = (0..=255).collect();
            let buf = crate::api::buffer::clCreateBuffer(
                c,
                CL_MEM_COPY_HOST_PTR,
                256,
                bytes.as_mut_ptr().cast(),
                &mut err,
            );
            let region = cl_buffer_region {
                origin: 128,
                size: 64,
            };
            let sub = crate::api::buffer::clCreateSubBuffer(
                buf,
                0,
                CL_BUFFER_CREATE_TYPE_REGION,
                (&region as *const cl_buffer_region).cast(),
                &mut err,
            );
            assert_eq!(err, CL_SUCCESS);
            let mut desc = desc_of(CL_MEM_OBJECT_IMAGE1D_BUFFER, [16, 0, 0], [0, 0]);
            desc.buffer = sub;
            let f = fmt(CL_RGBA, CL_UNSIGNED_INT8);
            let img = clCreateImage(c, 0, &f, &desc, std::ptr::null_mut(), &mut err);
            assert_eq!(err, CL_SUCCESS);
            let (o, r) = ([1usize, 0, 0], [2usize, 1, 1]);
            let mut out = [0u8; 8];
            let rc = clEnqueueReadImage(
                q,
                img,
                CL_TRUE,
                o.as_ptr(),
                r.as_ptr(),
                0,
                0,
                out.as_mut_ptr().cast(),
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            );
            assert_eq!(rc, CL_SUCCESS);
            assert_eq!(out, [132, 133, 134, 135, 136, 137, 138, 139]);
            let mut pitch = 0usize;
            let p = clEnqueueMapImage(
                q,
                img,
                CL_TRUE,
                CL_MAP_READ,
                o.as_ptr(),
                r.as_ptr(),
                &mut pitch,
                std::ptr::null_mut(),
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
                &mut err,
            );
            assert_eq!(err, CL_SUCCESS);
            assert_eq!(*p.cast::<u8>(), 132);
            let unmap = crate::api::mem::clEnqueueUnmapMemObject;
            assert_eq!(
                unmap(q, img, p, 0, std::ptr::null(), std::ptr::null_mut()),
                CL_SUCCESS
            );
            assert_eq!(crate::api::queue::clFinish(q), CL_SUCCESS);
            for m in [img, sub, buf] {
                assert_eq!(crate::api::mem::clReleaseMemObject(m), CL_SUCCESS);
            }
            assert_eq!(crate::api::queue::clReleaseCommandQueue(q), CL_SUCCESS);
            assert_eq!(context::clReleaseContext(c), CL_SUCCESS);
        }
    }

    /// A 1-D image array's region is (width, layers, 1): one row per layer. It was mapped to
    /// a box of no rows, so writes and fills moved nothing and maps and reads panicked on
    /// the empty box (CTS images/clFillImage 1Darray: CL_OUT_OF_HOST_MEMORY).
    #[test]
    fn one_dimensional_arrays_move_one_row_per_layer() {
        let d = crate::core::platform::device_id();
        let mut err = 0;
        // SAFETY: valid pointers to live values throughout; transfers block.
        unsafe {
            let c = context::test_context();
            let q = crate::api::queue::clCreateCommandQueue(c, d, 0, &mut err);
            let mut desc = desc_of(CL_MEM_OBJECT_IMAGE1D_ARRAY, [4, 0, 0], [0, 0]);
            desc.image_array_size = 3;
            let f = fmt(CL_R, CL_UNSIGNED_INT8);
            let img = clCreateImage(c, 0, &f, &desc, std::ptr::null_mut(), &mut err);
            assert_eq!(err, CL_SUCCESS);
            // Layers 1 and 2, texels 1..4: written, then read back whole.
            let (o, r) = ([1usize, 1, 0], [3usize, 2, 1]);
            let data: [u8; 6] = [1, 2, 3, 4, 5, 6];
            let none = (0, std::ptr::null(), std::ptr::null_mut());
            let rc = clEnqueueWriteImage(
                q,
                img,
                CL_TRUE,
                o.as_ptr(),
                r.as_ptr(),
                0,
                0,
                data.as_ptr().cast(),
                none.0,
                none.1,
                none.2,
            );
            assert_eq!(rc, CL_SUCCESS);
            let mut out = [9u8; 12];
            let (all_o, all_r) = ([0usize; 3], [4usize, 3, 1]);
            let rc = clEnqueueReadImage(
                q,
                img,
                CL_TRUE,
                all_o.as_ptr(),
                all_r.as_ptr(),
                0,
                0,
                out.as_mut_ptr().cast(),
                none.0,
                none.1,
                none.2,
            );
            assert_eq!(rc, CL_SUCCESS);
            // Layer 0 was never written (zeros of a fresh image are not promised: only the
            // written texels are checked).
            assert_eq!(
                (&out[5..8], &out[9..12]),
                (&[1u8, 2, 3][..], &[4u8, 5, 6][..])
            );
            let (mut row, mut slice) = (0usize, 0usize);
            let p = clEnqueueMapImage(
                q,
                img,
                CL_TRUE,
                CL_MAP_READ,
                o.as_ptr(),
                r.as_ptr(),
                &mut row,
                &mut slice,
                none.0,
                none.1,
                none.2,
                &mut err,
            );
            assert_eq!(err, CL_SUCCESS);
            assert_eq!((row, slice), (4, 4));
            assert_eq!((*p.cast::<u8>(), *p.cast::<u8>().add(slice)), (1, 4));
            let unmap = crate::api::mem::clEnqueueUnmapMemObject;
            assert_eq!(unmap(q, img, p, none.0, none.1, none.2), CL_SUCCESS);
            assert_eq!(crate::api::queue::clFinish(q), CL_SUCCESS);
            assert_eq!(crate::api::mem::clReleaseMemObject(img), CL_SUCCESS);
            assert_eq!(crate::api::queue::clReleaseCommandQueue(q), CL_SUCCESS);
            assert_eq!(context::clReleaseContext(c), CL_SUCCESS);
        }
    }

    /// Host pitches too large for any memory are refused, not multiplied into an overflow.
    #[test]
    fn overflowing_host_pitches_are_invalid_values() {
        let d = crate::core::platform::device_id();
        let mut err = 0;
        // SAFETY: valid pointers to live values throughout; the refused reads touch no memory.
        unsafe {
            let c = context::test_context();
            let q = crate::api::queue::clCreateCommandQueue(c, d, 0, &mut err);
            let desc = desc_of(CL_MEM_OBJECT_IMAGE2D, [4, 4, 0], [0, 0]);
            let f = fmt(CL_RGBA, CL_UNSIGNED_INT8);
            let img = clCreateImage(c, 0, &f, &desc, std::ptr::null_mut(), &mut err);
            assert_eq!(err, CL_SUCCESS);
            let (o, r) = ([0usize; 3], [4usize, 4, 1]);
            let mut out = [0u8; 64];
            for row_pitch in [usize::MAX / 2, usize::MAX] {
                let rc = clEnqueueReadImage(
                    q,
                    img,
                    CL_TRUE,
                    o.as_ptr(),
                    r.as_ptr(),
                    row_pitch,
                    0,
                    out.as_mut_ptr().cast(),
                    0,
                    std::ptr::null(),
                    std::ptr::null_mut(),
                );
                assert_eq!(rc, CL_INVALID_VALUE, "row pitch {row_pitch}");
            }
            assert_eq!(crate::api::mem::clReleaseMemObject(img), CL_SUCCESS);
            assert_eq!(crate::api::queue::clReleaseCommandQueue(q), CL_SUCCESS);
            assert_eq!(context::clReleaseContext(c), CL_SUCCESS);
        }
    }
}
