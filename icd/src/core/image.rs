//! Images: what makes a memory object an image, formats and layouts, and what commands do
//! with texels.
//!
//! An image is a [`Mem`] whose storage holds its texels (tightly packed, or laid out with the
//! application's pitches for `CL_MEM_USE_HOST_PTR`) and whose `image` field describes them.
//! The interpreter gets the storage and the [`ImageDesc`] (`shadowcl_interpreter::image`).

use crate::consts::*;
use crate::core::context::Context;
use crate::core::launch;
use crate::core::mem::{new_mem, HostTransfer, Mem, Role};
use crate::core::object::Ref;
use crate::core::platform::MAX_ALLOC;
use crate::core::UserPtr;
use crate::types::*;
use shadowcl_interpreter::{Buffer, ImageDesc, ImageDim, ImageFormat};

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
    /// Bytes of one texel.
    pub fn element_size(&self) -> usize {
        self.desc.format.element_size().unwrap_or(1)
    }
}

/// The image description of a memory object (`CL_INVALID_MEM_OBJECT` for buffers).
pub fn info(m: &Mem) -> Result<&ImageInfo, cl_int> {
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
    // Without host memory the pitches are the device's, except that a 1-D buffer image (one
    // row, over its buffer's bytes) may state its row's size, as the CTS's kernel_image_methods
    // and the major implementations do; the checks below apply to it.
    let stated_row = dim == ImageDim::D1Buffer && slice == 0;
    if !has_host_ptr && !stated_row && (row != 0 || slice != 0) {
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

/// A new image's description, its arguments checked (`crate::api::image`).
pub struct ImageSpec {
    /// The format as the application gave it.
    pub format: cl_image_format,
    pub mem_type: cl_mem_object_type,
    /// The layout from [`layout`] (the application's pitches when it gave a host pointer).
    pub desc: ImageDesc,
    /// The bytes the host pointer covers.
    pub host_len: usize,
    /// The buffer of a 1-D buffer image.
    pub buffer: Option<Ref<Mem>>,
}

/// Creates an image (arguments checked): over its buffer's storage for a 1-D buffer image,
/// over the application's memory for `CL_MEM_USE_HOST_PTR`, else in owned, tightly packed
/// storage, holding `copy` (`CL_MEM_COPY_HOST_PTR`, rows at the application's pitches).
pub fn new_image(
    ctx: Ref<Context>,
    flags: cl_mem_flags,
    props: Vec<cl_mem_properties>,
    host_ptr: UserPtr,
    copy: Option<&[u8]>,
    spec: ImageSpec,
) -> Result<Ref<Mem>, cl_int> {
    let ImageSpec {
        format: fmt,
        mem_type,
        mut desc,
        host_len,
        buffer,
    } = spec;
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
            let s = unsafe { Buffer::from_host_ptr(host_ptr.0.cast(), host_len) };
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
    if let Some(src) = copy {
        // Repack the application's rows into the tight storage layout.
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
        launch::buffer_created(&storage, from_host);
        launch::memory_object_created(&storage, 0, storage.len(), flags);
    }
    Ok(new_mem(
        ctx,
        flags,
        size,
        UserPtr(if flags & CL_MEM_USE_HOST_PTR != 0 {
            host_ptr.0
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
    ))
}

/// Moves the box at `origin` of `region` (memory coordinates) of image `m` to or from
/// `host`, whose rows and slices are `row` and `slice` bytes apart.
pub fn transfer(
    m: &Mem,
    dir: HostTransfer,
    origin: [u64; 3],
    region: [u64; 3],
    host: &mut [u8],
    (row, slice): (usize, usize),
) -> Result<(), cl_int> {
    let Some(i) = m.image.as_ref() else {
        return Err(CL_INVALID_MEM_OBJECT);
    };
    let row_bytes = region[0] as usize * i.element_size();
    for z in 0..region[2] {
        for y in 0..region[1] {
            let at = i.desc.offset([origin[0], origin[1] + y, origin[2] + z]) as usize;
            let ho = z as usize * slice + y as usize * row;
            dir.move_row(m, at, &mut host[ho..ho + row_bytes])?;
        }
    }
    Ok(())
}

/// One side of a device-side copy: storage, offset of each row (y, z) in it.
pub struct Side {
    mem: Ref<Mem>,
    rows: Box<dyn Fn(u64, u64) -> usize + Send>,
}

/// Copies `r[1] * r[2]` rows of `row_bytes` from `src` to `dst`.
pub fn copy_rows(src: &Side, dst: &Side, r: [u64; 3], row_bytes: usize) -> Result<(), cl_int> {
    for z in 0..r[2] {
        for y in 0..r[1] {
            let (s, d) = ((src.rows)(y, z), (dst.rows)(y, z));
            launch::host_read(&src.mem.storage, src.mem.param(Role::Src), s, row_bytes);
            launch::host_wrote(&dst.mem.storage, dst.mem.param(Role::Dst), d, row_bytes);
            dst.mem
                .storage
                .copy_from(d, &src.mem.storage, s, row_bytes)
                .map_err(|_| CL_OUT_OF_RESOURCES)?;
        }
    }
    Ok(())
}

/// The image side of a copy, from `o` (memory coordinates).
pub fn image_side(m: &Ref<Mem>, o: [u64; 3]) -> Result<Side, cl_int> {
    let d = info(m)?.desc;
    Ok(Side {
        mem: m.clone(),
        rows: Box::new(move |y, z| d.offset([o[0], o[1] + y, o[2] + z]) as usize),
    })
}

/// The buffer side of an image <-> buffer copy: the buffer holds the region's
/// rows back to back from `offset`, with no padding between rows or slices.
/// `CL_INVALID_VALUE` when that span does not fit in the buffer.
pub fn packed_buffer_side(
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

/// The texel `rgba` (`fill_color`: float4 for normalized and float formats, int4 / uint4 for
/// integer ones) in the image's format.
pub fn fill_texel(i: &ImageInfo, rgba: [u32; 4]) -> Vec<u8> {
    let t = i.format.image_channel_data_type;
    let float_src = !(CL_SIGNED_INT8..=CL_UNSIGNED_INT32).contains(&t);
    let f = i.desc.format;
    let raw = f.encode(&rgba, float_src);
    let cs = f.channel_size().unwrap_or(1);
    raw.iter()
        .take(i.element_size() / cs)
        .flat_map(|v| v.to_le_bytes().into_iter().take(cs))
        .collect()
}

/// Fills the box at `o` of `r` (memory coordinates) of image `m` with `texel`.
pub fn fill(m: &Mem, o: [u64; 3], r: [u64; 3], texel: &[u8]) -> Result<(), cl_int> {
    let i = info(m)?;
    let row_bytes = r[0] as usize * i.element_size();
    let d = i.desc;
    for z in 0..r[2] {
        for y in 0..r[1] {
            let at = d.offset([o[0], o[1] + y, o[2] + z]) as usize;
            launch::host_wrote(&m.storage, m.param(Role::Only), at, row_bytes);
            m.storage
                .fill(at, row_bytes, texel)
                .map_err(|_| CL_OUT_OF_RESOURCES)?;
        }
    }
    Ok(())
}

/// The interpreter's argument value for a memory object bound to an image parameter.
pub fn launch_value(m: &Mem) -> Option<shadowcl_interpreter::ArgValue> {
    let i = m.image.as_ref()?;
    Some(shadowcl_interpreter::ArgValue::Image {
        buffer: m.storage.clone(),
        desc: i.desc,
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
}
