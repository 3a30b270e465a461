//! Images and samplers: creation and validation, queries, and the commands that move texels.
//!
//! An image is a [`Mem`] whose storage holds its texels (tightly packed, or laid out with the
//! application's pitches for `CL_MEM_USE_HOST_PTR`) and whose `image` field describes them.
//! The interpreter gets the storage and the [`ImageDesc`] (`shadowcl_interpreter::image`).
#![allow(clippy::missing_safety_doc, clippy::too_many_arguments)] // entry points: see the spec

use crate::consts::*;
use crate::context::{self, Context};
use crate::entry::{call, call_ptr};
use crate::info::{out, properties, properties_as_passed, slice, v, write_info, UserPtr};
use crate::mem::{
    check_buffer_flags, check_map_flags, get_mem, host_bytes, new_mem, pitch_or_packed,
    queue_and_any_mem, region_of, triple, HostTransfer, Mem,
};
use crate::object::{self, ClObject, Ref};
use crate::platform::MAX_ALLOC;
use crate::queue::{enqueue, wait_list};
use crate::types::*;
use shadowcl_interpreter::{Buffer, ImageDesc, ImageDim, ImageFormat};
use std::ffi::c_void;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Device limits (reported by `clGetDeviceInfo`, enforced here).
pub const IMAGE2D_MAX: usize = 16384;
pub const IMAGE3D_MAX: usize = 2048;
pub const IMAGE_MAX_ARRAY_SIZE: usize = 2048;
pub const IMAGE_MAX_BUFFER_SIZE: usize = 65536;
pub const MAX_READ_IMAGE_ARGS: u32 = 128;
pub const MAX_WRITE_IMAGE_ARGS: u32 = 64;
pub const MAX_SAMPLERS: u32 = 16;

/// What makes a memory object an image.
pub struct ImageInfo {
    pub format: cl_image_format,
    pub mem_type: cl_mem_object_type,
    /// Geometry and layout of the texels in the storage.
    pub desc: ImageDesc,
    /// The buffer of a 1-D buffer image.
    pub buffer: Option<Ref<Mem>>,
}

impl ImageInfo {
    fn element_size(&self) -> usize {
        self.desc.format.element_size().unwrap_or(1)
    }
}

/// The image behind a handle (`CL_INVALID_MEM_OBJECT` for buffers and garbage).
fn get_image(m: cl_mem) -> Result<Ref<Mem>, cl_int> {
    let m = get_mem(m)?;
    if m.image.is_none() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    Ok(m)
}

fn info(m: &Mem) -> Result<&ImageInfo, cl_int> {
    m.image.as_ref().ok_or(CL_INVALID_MEM_OBJECT)
}

/// A `cl_image_format` the specification defines (§5.3.1.1), in the interpreter's numbering;
/// `Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)` for values or combinations it does not define.
#[allow(non_upper_case_globals)] // CL_RGBx, CL_sRGB...: the header's names
pub fn check_format(f: &cl_image_format) -> Result<ImageFormat, cl_int> {
    let (o, t) = (f.image_channel_order, f.image_channel_data_type);
    let known_order = (CL_R..=CL_ABGR).contains(&o) && o != 0x10BE; // CL_DEPTH_STENCIL (gl)
    let known_type = (CL_SNORM_INT8..=CL_UNORM_INT_101010_2).contains(&t) && t != CL_UNORM_INT24;
    if !known_order || !known_type {
        return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    let packed = matches!(
        t,
        CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 | CL_UNORM_INT_101010 | CL_UNORM_INT_101010_2
    );
    let eight = matches!(
        t,
        CL_UNORM_INT8 | CL_SNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8
    );
    let norm_or_float = matches!(
        t,
        CL_UNORM_INT8 | CL_UNORM_INT16 | CL_SNORM_INT8 | CL_SNORM_INT16 | CL_HALF_FLOAT | CL_FLOAT
    );
    let ok = match o {
        CL_RGB | CL_RGBx => packed && t != CL_UNORM_INT_101010_2,
        CL_RGBA => !packed || t == CL_UNORM_INT_101010_2,
        CL_BGRA | CL_ARGB | CL_ABGR => eight,
        CL_INTENSITY | CL_LUMINANCE => norm_or_float,
        CL_DEPTH => matches!(t, CL_UNORM_INT16 | CL_FLOAT),
        CL_sRGB | CL_sRGBx | CL_sRGBA | CL_sBGRA => t == CL_UNORM_INT8,
        _ => !packed,
    };
    if !ok {
        return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    Ok(ImageFormat {
        order: o - CL_R,
        data_type: t - CL_SNORM_INT8,
    })
}

pub fn dim_of(t: cl_mem_object_type) -> Option<ImageDim> {
    Some(match t {
        CL_MEM_OBJECT_IMAGE1D => ImageDim::D1,
        CL_MEM_OBJECT_IMAGE1D_BUFFER => ImageDim::D1Buffer,
        CL_MEM_OBJECT_IMAGE1D_ARRAY => ImageDim::D1Array,
        CL_MEM_OBJECT_IMAGE2D => ImageDim::D2,
        CL_MEM_OBJECT_IMAGE2D_ARRAY => ImageDim::D2Array,
        CL_MEM_OBJECT_IMAGE3D => ImageDim::D3,
        _ => return None,
    })
}

/// The layout of a new image: checks `desc` against the format and the device limits and
/// computes the pitches (the application's for a host pointer, else tightly packed).
/// Returns the interpreter descriptor and the bytes the host pointer must cover.
pub fn layout(
    format: ImageFormat,
    d: &cl_image_desc,
    has_host_ptr: bool,
) -> Result<(ImageDesc, usize), cl_int> {
    let dim = dim_of(d.image_type).ok_or(CL_INVALID_IMAGE_DESCRIPTOR)?;
    if d.num_mip_levels != 0 || d.num_samples != 0 {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    if (dim == ImageDim::D1Buffer) == d.buffer.is_null() {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let e = format.element_size().ok_or(CL_IMAGE_FORMAT_NOT_SUPPORTED)?;
    let (w, h, depth, n) = (
        d.image_width,
        d.image_height,
        d.image_depth,
        d.image_array_size,
    );
    let arrayed = matches!(dim, ImageDim::D1Array | ImageDim::D2Array);
    let two = matches!(dim, ImageDim::D2 | ImageDim::D2Array | ImageDim::D3);
    if w == 0 || (two && h == 0) || (dim == ImageDim::D3 && depth == 0) || (arrayed && n == 0) {
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    let max_w = match dim {
        ImageDim::D1Buffer => IMAGE_MAX_BUFFER_SIZE,
        ImageDim::D3 => IMAGE3D_MAX,
        _ => IMAGE2D_MAX,
    };
    let too_big = w > max_w
        || (two
            && h > if dim == ImageDim::D3 {
                IMAGE3D_MAX
            } else {
                IMAGE2D_MAX
            })
        || (dim == ImageDim::D3 && depth > IMAGE3D_MAX)
        || (arrayed && n > IMAGE_MAX_ARRAY_SIZE);
    if too_big {
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    let mut desc = ImageDesc::packed(dim, format, [w as u64, h as u64, depth as u64], n as u64)
        .ok_or(CL_INVALID_IMAGE_SIZE)?;
    let (row, slice) = (d.image_row_pitch, d.image_slice_pitch);
    if !has_host_ptr && (row != 0 || slice != 0) {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let min_row = w * e;
    let row = if row == 0 { min_row } else { row };
    if row < min_row || row % e != 0 {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    // Slices: 3-D images and 2-D arrays hold rows of `row` bytes; a 1-D array's layer is one row.
    let layered = matches!(dim, ImageDim::D3 | ImageDim::D2Array | ImageDim::D1Array);
    let min_slice = if dim == ImageDim::D1Array {
        row
    } else {
        row.checked_mul(h.max(1)).ok_or(CL_INVALID_IMAGE_SIZE)?
    };
    let slice = if slice == 0 || !layered {
        min_slice
    } else {
        slice
    };
    if layered && (slice < min_slice || slice % row != 0) {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    desc.row_pitch = row as u64;
    desc.slice_pitch = slice as u64;
    let bytes = desc.byte_len().ok_or(CL_INVALID_IMAGE_SIZE)?;
    if bytes > MAX_ALLOC {
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    // The host memory covers whole rows and slices.
    let [_, eh, ed] = desc.extent();
    let host_len = if layered {
        slice * ed as usize
    } else {
        row * eh as usize
    };
    Ok((desc, host_len))
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
            crate::mem::sub_buffer_flags(b.flags, flags)?
        }
        None => check_buffer_flags(flags, !host_ptr.is_null())?,
    };
    let format = check_format(&fmt)?;
    if !format.is_supported() {
        return Err(CL_IMAGE_FORMAT_NOT_SUPPORTED);
    }
    let (mut desc, host_len) = layout(format, &d, !host_ptr.is_null())?;
    let mem_type = d.image_type;
    let packed = ImageDesc::packed(
        desc.dim,
        desc.format,
        [desc.width, desc.height, desc.depth],
        desc.array_size,
    )
    .ok_or(CL_INVALID_IMAGE_SIZE)?;
    let (storage, size) = match &buffer {
        Some(b) => {
            if desc.byte_len().is_none_or(|n| n > b.size as u64) {
                return Err(CL_INVALID_IMAGE_SIZE);
            }
            // The texels start where the (sub-)buffer does in the shared storage.
            desc.base = b.offset as u64;
            (b.storage.clone(), b.size)
        }
        None if flags & CL_MEM_USE_HOST_PTR != 0 => {
            // SAFETY: CL_MEM_USE_HOST_PTR: the application keeps host_len bytes (whole rows
            // and slices at its pitches) valid for the image's lifetime (spec).
            let s = unsafe { Buffer::from_host_ptr(host_ptr.cast(), host_len) };
            (s, host_len)
        }
        None => {
            // Owned storage is tightly packed (host data is repacked below).
            let len = packed.byte_len().ok_or(CL_INVALID_IMAGE_SIZE)? as usize;
            let s = Buffer::new(len).ok_or(CL_MEM_OBJECT_ALLOCATION_FAILURE)?;
            (s, len)
        }
    };
    let from_host = flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR) != 0;
    if flags & CL_MEM_COPY_HOST_PTR != 0 && buffer.is_none() {
        // Repack the application's rows into the tight storage layout.
        let src = slice(host_ptr.cast::<u8>(), host_len, CL_INVALID_HOST_PTR)?;
        let [w, h, dd] = desc.extent();
        let row = w as usize * desc.format.element_size().unwrap_or(1);
        for z in 0..dd {
            for y in 0..h {
                let at = (z * desc.slice_pitch + y * desc.row_pitch) as usize;
                let to = (z * packed.slice_pitch + y * packed.row_pitch) as usize;
                storage
                    .write(to, &src[at..at + row])
                    .map_err(|_| CL_INVALID_HOST_PTR)?;
            }
        }
        desc = packed;
    }
    if buffer.is_none() {
        crate::launch::buffer_created(&storage, from_host);
    }
    let m = new_mem(
        ctx,
        flags,
        size,
        UserPtr(if flags & CL_MEM_USE_HOST_PTR != 0 {
            host_ptr
        } else {
            std::ptr::null_mut()
        }),
        storage,
        props,
        Some(ImageInfo {
            format: fmt,
            mem_type,
            desc,
            buffer,
        }),
    );
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

fn desc_of(t: cl_mem_object_type, size: [usize; 3], pitches: [usize; 2]) -> cl_image_desc {
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
        let all: Vec<cl_image_format> = ImageFormat::all_supported()
            .into_iter()
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
    let to_mem = |a: [usize; 3]| -> [u64; 3] {
        if d.dim == ImageDim::D1Array {
            [a[0] as u64, 0, a[1] as u64]
        } else {
            a.map(|x| x as u64)
        }
    };
    let (o, r) = (to_mem(o), to_mem(r));
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
    dir.check_host_access(&m)?;
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
        Box::new(move || {
            let Some(i) = m2.image.as_ref() else {
                return Err(CL_INVALID_MEM_OBJECT);
            };
            let host = host_bytes(user, span);
            for z in 0..r[2] {
                for y in 0..r[1] {
                    let at = i.desc.offset([o[0], o[1] + y, o[2] + z]) as usize;
                    let ho = z as usize * slice + y as usize * row;
                    dir.move_row(&m2.storage, at, &mut host[ho..ho + row_bytes])?;
                }
            }
            Ok(())
        }),
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

/// One side of a device-side copy: storage, offset of each row (y, z) in it.
struct Side {
    mem: Ref<Mem>,
    rows: Box<dyn Fn(u64, u64) -> usize + Send>,
}

/// Copies `r[1] * r[2]` rows of `row_bytes` between two memory objects.
fn enqueue_copy(
    q: &Ref<crate::queue::Queue>,
    command: cl_command_type,
    waits: Vec<Ref<crate::queue::Event>>,
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
        Box::new(move || {
            for z in 0..r[2] {
                for y in 0..r[1] {
                    let (s, d) = ((src.rows)(y, z), (dst.rows)(y, z));
                    crate::launch::buffer_written_by_host(dst.mem.storage.id(), d, row_bytes);
                    dst.mem
                        .storage
                        .copy_from(d, &src.mem.storage, s, row_bytes)
                        .map_err(|_| CL_OUT_OF_RESOURCES)?;
                }
            }
            Ok(())
        }),
    )
}

fn image_side(m: &Ref<Mem>, o: [u64; 3]) -> Result<Side, cl_int> {
    let d = info(m)?.desc;
    Ok(Side {
        mem: m.clone(),
        rows: Box::new(move |y, z| d.offset([o[0], o[1] + y, o[2] + z]) as usize),
    })
}

/// The buffer side of an image <-> buffer copy: the buffer holds the region's
/// rows back to back from `offset`, with no padding between rows or slices.
/// `CL_INVALID_VALUE` when that span does not fit in the buffer.
fn packed_buffer_side(
    m: &Ref<Mem>,
    offset: usize,
    r: [u64; 3],
    row_bytes: usize,
) -> Result<Side, cl_int> {
    let total = row_bytes * (r[1] * r[2]) as usize;
    match offset.checked_add(total) {
        Some(e) if e <= m.size => {}
        _ => return Err(CL_INVALID_VALUE),
    }
    let base = m.offset + offset;
    let rows_per_slice = r[1] as usize;
    Ok(Side {
        mem: m.clone(),
        rows: Box::new(move |y, z| base + (z as usize * rows_per_slice + y as usize) * row_bytes),
    })
}

fn same_context(q: &Ref<crate::queue::Queue>, m: &Mem) -> Result<(), cl_int> {
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
        let rgba = [c[0], c[1], c[2], c[3]];
        let t = i.format.image_channel_data_type;
        let float_src = !(CL_SIGNED_INT8..=CL_UNSIGNED_INT32).contains(&t);
        let f = i.desc.format;
        let raw = f.encode(&rgba, float_src);
        let cs = f.channel_size().unwrap_or(1);
        let texel: Vec<u8> = raw
            .iter()
            .take(i.element_size() / cs)
            .flat_map(|v| v.to_le_bytes().into_iter().take(cs))
            .collect();
        let row_bytes = r[0] as usize * i.element_size();
        let d = i.desc;
        let m2 = m.clone();
        enqueue(
            &q,
            CL_COMMAND_FILL_IMAGE,
            waits,
            event,
            false,
            Box::new(move || {
                for z in 0..r[2] {
                    for y in 0..r[1] {
                        let at = d.offset([o[0], o[1] + y, o[2] + z]) as usize;
                        crate::launch::buffer_written_by_host(m2.storage.id(), at, row_bytes);
                        m2.storage
                            .fill(at, row_bytes, &texel)
                            .map_err(|_| CL_OUT_OF_RESOURCES)?;
                    }
                }
                Ok(())
            }),
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
        let p = m.storage.host_ptr().wrapping_add(m.offset + start);
        m.map_count.fetch_add(1, Ordering::Relaxed);
        // The host may write through the mapping: count the mapped bytes as initialised.
        crate::launch::buffer_written_by_host(m.storage.id(), m.offset + start, end - start);
        enqueue(
            &q,
            CL_COMMAND_MAP_IMAGE,
            waits,
            event,
            blocking_map != 0,
            Box::new(move || {
                drop(m);
                Ok(())
            }),
        )?;
        Ok(p.cast::<c_void>())
    })
}

/// Checks a memory object given for an image argument against the kernel's access qualifier.
pub fn image_arg(m: &Ref<Mem>, access: shadowcl_interpreter::ArgAccess) -> Result<(), cl_int> {
    use shadowcl_interpreter::ArgAccess;
    // A buffer where an image is declared: not a memory object of the right kind.
    if m.image.is_none() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    let a = m.flags & (CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY);
    match access {
        ArgAccess::ReadOnly if a == CL_MEM_WRITE_ONLY => Err(CL_INVALID_ARG_VALUE),
        ArgAccess::WriteOnly if a == CL_MEM_READ_ONLY => Err(CL_INVALID_ARG_VALUE),
        _ => Ok(()),
    }
}

/// The interpreter's argument value for a memory object bound to an image parameter.
pub fn launch_value(m: &Mem) -> Option<shadowcl_interpreter::ArgValue> {
    let i = m.image.as_ref()?;
    Some(shadowcl_interpreter::ArgValue::Image {
        buffer: m.storage.clone(),
        desc: i.desc,
    })
}

// ---------------------------------------------------------------------------------------
// Samplers

pub struct Sampler {
    pub context: Ref<Context>,
    pub normalized: bool,
    pub addressing: cl_addressing_mode,
    pub filter: cl_filter_mode,
    pub properties: Vec<cl_sampler_properties>,
}

impl ClObject for Sampler {
    const TAG: u32 = 0x5C1_0009;
    const INVALID: i32 = CL_INVALID_SAMPLER;
    type Handle = cl_sampler;
}

impl Sampler {
    /// The `sampler_t` bits kernels see (`CLK_*` of OpenCL C).
    pub fn bits(&self) -> u32 {
        sampler_bits(self.normalized, self.addressing, self.filter)
    }
}

/// The `sampler_t` bits kernels see (`CLK_*` of OpenCL C) for a sampler's properties.
pub fn sampler_bits(
    normalized: bool,
    addressing: cl_addressing_mode,
    filter: cl_filter_mode,
) -> u32 {
    use shadowcl_interpreter::image::sampler as s;
    let a = addressing.wrapping_sub(CL_ADDRESS_NONE).wrapping_mul(2);
    let f = if filter == CL_FILTER_LINEAR {
        s::FILTER_LINEAR
    } else {
        s::FILTER_NEAREST
    };
    a | f | normalized as u32
}

pub fn get_sampler(s: cl_sampler) -> Result<Ref<Sampler>, cl_int> {
    object::get::<Sampler, _>(s)
}

fn create_sampler(
    context: cl_context,
    normalized: cl_bool,
    addressing: cl_addressing_mode,
    filter: cl_filter_mode,
    props: Vec<cl_sampler_properties>,
) -> Result<cl_sampler, cl_int> {
    let ctx = context::get(context)?;
    if normalized > 1
        || !(CL_ADDRESS_NONE..=CL_ADDRESS_MIRRORED_REPEAT).contains(&addressing)
        || !(CL_FILTER_NEAREST..=CL_FILTER_LINEAR).contains(&filter)
    {
        return Err(CL_INVALID_VALUE);
    }
    let s = object::create(Sampler {
        context: ctx,
        normalized: normalized != 0,
        addressing,
        filter,
        properties: props,
    });
    Ok(object::into_handle(s))
}

pub unsafe extern "C" fn clCreateSampler(
    context: cl_context,
    normalized_coords: cl_bool,
    addressing_mode: cl_addressing_mode,
    filter_mode: cl_filter_mode,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    call_ptr("clCreateSampler", errcode_ret, || {
        create_sampler(
            context,
            normalized_coords,
            addressing_mode,
            filter_mode,
            Vec::new(),
        )
    })
}

pub unsafe extern "C" fn clCreateSamplerWithProperties(
    context: cl_context,
    props: *const cl_sampler_properties,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    call_ptr("clCreateSamplerWithProperties", errcode_ret, || {
        context::get(context)?;
        let list = properties(props)?;
        let (mut norm, mut addr, mut filt) = (CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST);
        let mut seen = Vec::new();
        for &(name, value) in &list {
            if seen.contains(&name) {
                return Err(CL_INVALID_VALUE);
            }
            seen.push(name);
            match name as u32 {
                CL_SAMPLER_NORMALIZED_COORDS => norm = value as cl_bool,
                CL_SAMPLER_ADDRESSING_MODE => addr = value as cl_uint,
                CL_SAMPLER_FILTER_MODE => filt = value as cl_uint,
                _ => return Err(CL_INVALID_VALUE),
            }
        }
        let as_passed = properties_as_passed(props, &list);
        create_sampler(context, norm, addr, filt, as_passed)
    })
}

pub unsafe extern "C" fn clRetainSampler(s: cl_sampler) -> cl_int {
    call("clRetainSampler", || object::retain::<Sampler, _>(s))
}

pub unsafe extern "C" fn clReleaseSampler(s: cl_sampler) -> cl_int {
    call("clReleaseSampler", || object::release::<Sampler, _>(s))
}

pub unsafe extern "C" fn clGetSamplerInfo(
    s: cl_sampler,
    param_name: cl_sampler_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetSamplerInfo", || {
        let s = get_sampler(s)?;
        let answer = match param_name {
            CL_SAMPLER_REFERENCE_COUNT => v(&object::ref_count(&s)),
            CL_SAMPLER_CONTEXT => v(&object::handle::<Context>(&s.context)),
            CL_SAMPLER_NORMALIZED_COORDS => v(&(s.normalized as cl_bool)),
            CL_SAMPLER_ADDRESSING_MODE => v(&s.addressing),
            CL_SAMPLER_FILTER_MODE => v(&s.filter),
            CL_SAMPLER_PROPERTIES => v(&s.properties),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(o: u32, t: u32) -> cl_image_format {
        cl_image_format {
            image_channel_order: o,
            image_channel_data_type: t,
        }
    }

    #[test]
    fn format_descriptor_rules() {
        assert!(check_format(&fmt(CL_RGBA, CL_UNORM_INT8)).is_ok());
        assert_eq!(
            check_format(&fmt(CL_RGB, CL_UNORM_INT8)),
            Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        );
        assert_eq!(
            check_format(&fmt(CL_BGRA, CL_FLOAT)),
            Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        );
        assert_eq!(
            check_format(&fmt(0, CL_FLOAT)),
            Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        );
        // Packed RGB is implemented; RGBA 101010_2 is valid but not implemented
        // (CL_IMAGE_FORMAT_NOT_SUPPORTED at creation).
        let f = check_format(&fmt(CL_RGB, CL_UNORM_SHORT_565));
        assert!(f.is_ok_and(|f| f.is_supported()));
        let f = check_format(&fmt(CL_RGBA, CL_UNORM_INT_101010_2));
        assert!(f.is_ok_and(|f| !f.is_supported()));
        assert_eq!(
            check_format(&fmt(CL_RGB, CL_UNORM_INT_101010_2)),
            Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        );
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
    }

    /// clSetKernelArg kinds: images for image parameters (with the access qualifier
    /// respected), buffers for buffer parameters, sampler objects for samplers.
    #[test]
    fn kernel_argument_kinds() {
        use crate::kernel::{check_arg, ArgSet};
        use shadowcl_interpreter::{ArgAccess, ArgAddress, KernelArg, KernelInfo};
        let arg = |access, is_sampler| KernelArg {
            name: "a".into(),
            type_name: String::new(),
            address: if is_sampler {
                ArgAddress::Private
            } else {
                ArgAddress::Global
            },
            access,
            type_qualifier: 0,
            size: 8,
            pointee_size: 0,
            is_sampler,
        };
        let info = KernelInfo {
            name: "k".into(),
            args: vec![
                arg(ArgAccess::ReadOnly, false),
                arg(ArgAccess::None, false),
                arg(ArgAccess::None, true),
            ],
            reqd_work_group_size: [0; 3],
            work_group_size_hint: [0; 3],
            attributes: String::new(),
            local_mem_size: 0,
            private_mem_size: 0,
        };
        let mut err = 0;
        let fmt = fmt(CL_RGBA, CL_FLOAT);
        let desc = desc_of(CL_MEM_OBJECT_IMAGE2D, [2, 2, 0], [0, 0]);
        // SAFETY: valid pointers to live values throughout.
        unsafe {
            let c = context::test_context();
            let img = clCreateImage(
                c,
                CL_MEM_READ_WRITE,
                &fmt,
                &desc,
                std::ptr::null_mut(),
                &mut err,
            );
            assert_eq!(err, CL_SUCCESS);
            let wo = clCreateImage(
                c,
                CL_MEM_WRITE_ONLY,
                &fmt,
                &desc,
                std::ptr::null_mut(),
                &mut err,
            );
            let buf = crate::mem::clCreateBuffer(c, 0, 16, std::ptr::null_mut(), &mut err);
            let smp = clCreateSampler(c, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR, &mut err);
            assert_eq!(err, CL_SUCCESS);
            let p = |h: &*mut c_void| (h as *const *mut c_void).cast::<c_void>();
            let (img_h, wo_h, buf_h, smp_h) = (img.cast(), wo.cast(), buf.cast(), smp.cast());
            assert!(check_arg(&info, 0, 8, p(&img_h)).is_ok());
            assert_eq!(
                check_arg(&info, 0, 8, p(&wo_h)).err(),
                Some(CL_INVALID_ARG_VALUE)
            );
            assert_eq!(
                check_arg(&info, 0, 8, p(&buf_h)).err(),
                Some(CL_INVALID_MEM_OBJECT)
            );
            assert_eq!(
                check_arg(&info, 0, 8, std::ptr::null()).err(),
                Some(CL_INVALID_MEM_OBJECT)
            );
            assert_eq!(
                check_arg(&info, 1, 8, p(&img_h)).err(),
                Some(CL_INVALID_MEM_OBJECT)
            );
            assert!(matches!(
                check_arg(&info, 2, 8, p(&smp_h)),
                Ok(ArgSet::Sampler(0x27))
            ));
            assert_eq!(
                check_arg(&info, 2, 8, p(&img_h)).err(),
                Some(CL_INVALID_SAMPLER)
            );
            assert_eq!(
                check_arg(&info, 2, 4, p(&smp_h)).err(),
                Some(CL_INVALID_ARG_SIZE)
            );
            assert_eq!(clReleaseSampler(smp), CL_SUCCESS);
            for m in [img, wo, buf] {
                assert_eq!(crate::mem::clReleaseMemObject(m), CL_SUCCESS);
            }
            assert_eq!(context::clReleaseContext(c), CL_SUCCESS);
        }
    }

    /// A 1-D buffer image over a sub-buffer sees the sub-buffer's bytes, through host reads
    /// and maps, and shares them with the buffer.
    #[test]
    fn buffer_image_over_a_sub_buffer() {
        let d = crate::platform::device_id();
        let mut err = 0;
        // SAFETY: valid pointers to live values throughout.
        unsafe {
            let c = context::test_context();
            let q = crate::queue::clCreateCommandQueue(c, d, 0, &mut err);
            let mut bytes: Vec<u8> = (0..=255).collect();
            let buf = crate::mem::clCreateBuffer(
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
            let sub = crate::mem::clCreateSubBuffer(
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
            let unmap = crate::mem::clEnqueueUnmapMemObject;
            assert_eq!(
                unmap(q, img, p, 0, std::ptr::null(), std::ptr::null_mut()),
                CL_SUCCESS
            );
            assert_eq!(crate::queue::clFinish(q), CL_SUCCESS);
            for m in [img, sub, buf] {
                assert_eq!(crate::mem::clReleaseMemObject(m), CL_SUCCESS);
            }
            assert_eq!(crate::queue::clReleaseCommandQueue(q), CL_SUCCESS);
            assert_eq!(context::clReleaseContext(c), CL_SUCCESS);
        }
    }

    /// Host pitches too large for any memory are refused, not multiplied into an overflow.
    #[test]
    fn overflowing_host_pitches_are_invalid_values() {
        let d = crate::platform::device_id();
        let mut err = 0;
        // SAFETY: valid pointers to live values throughout; the refused reads touch no memory.
        unsafe {
            let c = context::test_context();
            let q = crate::queue::clCreateCommandQueue(c, d, 0, &mut err);
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
            assert_eq!(crate::mem::clReleaseMemObject(img), CL_SUCCESS);
            assert_eq!(crate::queue::clReleaseCommandQueue(q), CL_SUCCESS);
            assert_eq!(context::clReleaseContext(c), CL_SUCCESS);
        }
    }

    #[test]
    fn sampler_bits_match_opencl_c() {
        let ctx = crate::object::create(Context {
            properties: Vec::new(),
            notify: None,
            destructors: parking_lot::Mutex::new(Vec::new()),
        });
        let s = Sampler {
            context: ctx,
            normalized: true,
            addressing: CL_ADDRESS_REPEAT,
            filter: CL_FILTER_LINEAR,
            properties: Vec::new(),
        };
        // CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR
        assert_eq!(s.bits(), 0x1 | 0x6 | 0x20);
    }
}
