//! Images and samplers: formats and their conversions (OpenCL 1.2 §8.3), sampler addressing
//! and filtering (§8.2), and the image instructions the lowering emits.
//!
//! An image kernel argument is a pointer to the launch allocation that holds its texels,
//! so every texel access goes through the executor's bounds-checked memory path and is
//! reported to observers like any global access (the race checker sees image races). The
//! allocation also carries the [`ImageDesc`]. A sampler is its `sampler_t` bits
//! ([`sampler`]); a sampled image is the image pointer with the sampler bits in its offset
//! field (images are always addressed from offset 0).

use crate::clstd::Elem;
use crate::ir::ptr;

mod format;
#[cfg(test)]
mod tests;

pub use format::{dtype, order, ImageFormat};

/// `sampler_t` bits, as OpenCL C's `CLK_*` constants spell them.
pub mod sampler {
    pub const NORMALIZED: u32 = 1;
    pub const ADDRESS_MASK: u32 = 0xE;
    pub const ADDRESS_NONE: u32 = 0;
    pub const CLAMP_TO_EDGE: u32 = 2;
    pub const CLAMP: u32 = 4;
    pub const REPEAT: u32 = 6;
    pub const MIRRORED_REPEAT: u32 = 8;
    pub const FILTER_NEAREST: u32 = 0x10;
    pub const FILTER_LINEAR: u32 = 0x20;

    /// Bits of an `OpConstantSampler` (SPIR-V addressing 0..=4, normalized, filter 0..=1).
    pub fn from_spirv(addressing: u32, normalized: bool, linear: bool) -> u32 {
        let a = match addressing {
            1 => CLAMP_TO_EDGE,
            2 => CLAMP,
            3 => REPEAT,
            4 => MIRRORED_REPEAT,
            _ => ADDRESS_NONE,
        };
        a | normalized as u32
            | if linear {
                FILTER_LINEAR
            } else {
                FILTER_NEAREST
            }
    }
}

/// Image types (`CL_MEM_OBJECT_IMAGE*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageDim {
    D1,
    D1Buffer,
    D1Array,
    D2,
    D2Array,
    D3,
}

/// Geometry and format of an image bound to a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageDesc {
    pub dim: ImageDim,
    pub format: ImageFormat,
    pub width: u64,
    pub height: u64,
    pub depth: u64,
    pub array_size: u64,
    /// Bytes between rows (2-D and 3-D images and 2-D arrays).
    pub row_pitch: u64,
    /// Bytes between slices of a 3-D image or layers of an array.
    pub slice_pitch: u64,
    /// Byte offset of texel (0, 0, 0) in the storage (a 1-D buffer image over a
    /// sub-buffer); 0 otherwise.
    pub base: u64,
}

impl ImageDesc {
    /// A tightly packed image (pitches computed), or `None` for an unsupported format.
    pub fn packed(
        dim: ImageDim,
        format: ImageFormat,
        [width, height, depth]: [u64; 3],
        array_size: u64,
    ) -> Option<ImageDesc> {
        let e = format.element_size()? as u64;
        let mut d = ImageDesc {
            dim,
            format,
            width,
            height: 1,
            depth: 1,
            array_size: 1,
            row_pitch: width.checked_mul(e)?,
            slice_pitch: 0,
            base: 0,
        };
        match dim {
            ImageDim::D1 | ImageDim::D1Buffer => {}
            ImageDim::D1Array => d.array_size = array_size,
            ImageDim::D2 => d.height = height,
            ImageDim::D2Array => (d.height, d.array_size) = (height, array_size),
            ImageDim::D3 => (d.height, d.depth) = (height, depth),
        }
        d.slice_pitch = d.row_pitch.checked_mul(d.height)?;
        Some(d)
    }

    /// Texels along x, y and z of memory (z is the layer of an array, or the depth).
    pub fn extent(&self) -> [u64; 3] {
        match self.dim {
            ImageDim::D1 | ImageDim::D1Buffer => [self.width, 1, 1],
            ImageDim::D1Array => [self.width, 1, self.array_size],
            ImageDim::D2 => [self.width, self.height, 1],
            ImageDim::D2Array => [self.width, self.height, self.array_size],
            ImageDim::D3 => [self.width, self.height, self.depth],
        }
    }

    /// Bytes from the storage's start to the end of the image's last texel.
    pub fn byte_len(&self) -> Option<u64> {
        let [w, h, d] = self.extent();
        let e = self.format.element_size()? as u64;
        let last = |n: u64| n.saturating_sub(1);
        last(d)
            .checked_mul(self.slice_pitch)?
            .checked_add(last(h).checked_mul(self.row_pitch)?)?
            .checked_add(w.checked_mul(e)?)?
            .checked_add(self.base)
    }

    /// Byte offset of texel (x, y, z) in memory coordinates.
    pub fn offset(&self, at: [u64; 3]) -> u64 {
        self.texel_offset(self.format.element_size().unwrap_or(0), at)
    }

    /// [`ImageDesc::offset`] for texels of `e` bytes: the image instructions know the
    /// texel's layout already, and the format's full validity check costs per texel.
    #[inline]
    fn texel_offset(&self, e: usize, [x, y, z]: [u64; 3]) -> u64 {
        self.base + x * e as u64 + y * self.row_pitch + z * self.slice_pitch
    }

    /// Coordinate lanes: which memory axis each lane addresses, and the lane of the array
    /// layer (which is never filtered).
    fn axes(&self) -> (&'static [usize], Option<usize>) {
        match self.dim {
            ImageDim::D1 | ImageDim::D1Buffer => (&[0], None),
            ImageDim::D1Array => (&[0], Some(1)),
            ImageDim::D2 => (&[0, 1], None),
            ImageDim::D2Array => (&[0, 1], Some(2)),
            ImageDim::D3 => (&[0, 1, 2], None),
        }
    }

    /// `get_image_dim` etc.: the size lanes OpImageQuerySize returns.
    pub fn query_size(&self) -> Vec<u64> {
        match self.dim {
            ImageDim::D1 | ImageDim::D1Buffer => vec![self.width],
            ImageDim::D1Array => vec![self.width, self.array_size],
            ImageDim::D2 => vec![self.width, self.height],
            ImageDim::D2Array => vec![self.width, self.height, self.array_size],
            ImageDim::D3 => vec![self.width, self.height, self.depth],
        }
    }
}

/// Coordinates of a read: integer texel indices or float (normalized or not) coordinates.
#[derive(Clone, Copy, Debug)]
pub enum Coords {
    Int([i64; 3]),
    Float([f32; 3]),
}

/// Up to two texel indices along one axis and the weight of the second (linear filtering).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Taps {
    i0: i64,
    i1: i64,
    a: f32,
}

/// Index along one axis of size `n` for nearest filtering (§8.2), addressing applied.
/// Out-of-range results (only with `CLK_ADDRESS_CLAMP`) mean the border colour.
#[inline]
fn nearest(s: f32, n: i64, bits: u32) -> i64 {
    let norm = bits & sampler::NORMALIZED != 0;
    let mode = bits & sampler::ADDRESS_MASK;
    let nf = n as f32;
    if norm && mode == sampler::REPEAT {
        let u = (s - s.floor()) * nf;
        let i = u.floor() as i64;
        return if i > n - 1 { i - n } else { i };
    }
    if norm && mode == sampler::MIRRORED_REPEAT {
        let sp = (s - 2.0 * (0.5 * s).round_ties_even()).abs();
        return ((sp * nf).floor() as i64).min(n - 1);
    }
    let u = if norm { s * nf } else { s };
    address(u.floor() as i64, n, mode)
}

/// The two taps along one axis for linear filtering (§8.2).
fn linear(s: f32, n: i64, bits: u32) -> Taps {
    let norm = bits & sampler::NORMALIZED != 0;
    let mode = bits & sampler::ADDRESS_MASK;
    let nf = n as f32;
    let frac = |x: f32| x - x.floor();
    if norm && mode == sampler::REPEAT {
        let u = (s - s.floor()) * nf;
        let mut i0 = (u - 0.5).floor() as i64;
        let mut i1 = i0 + 1;
        if i0 < 0 {
            i0 += n;
        }
        if i1 > n - 1 {
            i1 -= n;
        }
        return Taps {
            i0,
            i1,
            a: frac(u - 0.5),
        };
    }
    if norm && mode == sampler::MIRRORED_REPEAT {
        let sp = (s - 2.0 * (0.5 * s).round_ties_even()).abs();
        let u = sp * nf;
        let i0 = (u - 0.5).floor() as i64;
        return Taps {
            i0: i0.max(0),
            i1: (i0 + 1).min(n - 1),
            a: frac(u - 0.5),
        };
    }
    let u = if norm { s * nf } else { s };
    let i0 = (u - 0.5).floor() as i64;
    Taps {
        i0: address(i0, n, mode),
        i1: address(i0 + 1, n, mode),
        a: frac(u - 0.5),
    }
}

/// Addressing of an unnormalized index: clamp to the edge, keep out-of-range for the border
/// colour (CLAMP), or — for NONE, where the result is undefined — clamp too, so a kernel
/// bug never reads outside the image.
#[inline]
fn address(i: i64, n: i64, mode: u32) -> i64 {
    if mode == sampler::CLAMP {
        i.clamp(-1, n)
    } else {
        i.clamp(0, n - 1)
    }
}

/// The memory the image instructions read and write through (the executor's checked,
/// observed path) and the descriptors of the launch's images.
pub(crate) trait TexelMem {
    fn desc(&self, image: u64) -> Option<ImageDesc>;
    fn load(&mut self, p: u64, n: usize) -> u64;
    fn store(&mut self, p: u64, n: usize, v: u64);
    /// A texel outside the image was named where the result is undefined (a write, or a
    /// read with `CLK_ADDRESS_NONE`): reported as an out-of-bounds access at the byte
    /// offset the coordinates give; the access itself is contained.
    fn outside(&mut self, image: u64, offset: i64, size: usize, write: bool);
}

/// Byte offset of possibly out-of-range memory coordinates (for reports only).
fn signed_offset(d: &ImageDesc, at: [i64; 3]) -> i64 {
    let e = d.format.element_size().unwrap_or(0) as i64;
    (d.base as i64)
        .wrapping_add(at[0].wrapping_mul(e))
        .wrapping_add(at[1].wrapping_mul(d.row_pitch as i64))
        .wrapping_add(at[2].wrapping_mul(d.slice_pitch as i64))
}

/// Memory coordinates of `coords` before any addressing (layer and float coordinates
/// rounded as nearest filtering does), and whether they lie inside the image.
#[inline]
fn raw_coords(d: &ImageDesc, coords: Coords, normalized: bool) -> ([i64; 3], bool) {
    let ext = d.extent();
    let (axes, layer) = d.axes();
    let mut at = [0i64; 3];
    for (k, &ax) in axes.iter().enumerate() {
        at[ax] = match coords {
            Coords::Int(c) => c[k],
            Coords::Float(c) if normalized => (c[k] * ext[ax] as f32).floor() as i64,
            Coords::Float(c) => c[k].floor() as i64,
        };
    }
    if let Some(l) = layer {
        at[2] = match coords {
            Coords::Int(c) => c[l],
            Coords::Float(c) => c[l].round_ties_even() as i64,
        };
    }
    let inside = (0..3).all(|k| at[k] >= 0 && (at[k] as u64) < ext[k]);
    (at, inside)
}

const OFF_MASK: u64 = (1 << ptr::OFF_BITS) - 1;

/// OpSampledImage: the image pointer with the sampler bits in its offset field.
pub(crate) fn combine(image: u64, sampler_bits: u64) -> u64 {
    (image & !OFF_MASK) | (sampler_bits & 0xFFFF)
}

/// The image pointer and sampler bits of a sampled image.
pub(crate) fn split(sampled: u64) -> (u64, u32) {
    (
        (sampled & !OFF_MASK) | (ptr::BIAS & OFF_MASK),
        (sampled & 0xFFFF) as u32,
    )
}

/// Reads texel (x, y, z) in memory coordinates as R, G, B, A; out of range → border.
fn fetch<M: TexelMem>(
    m: &mut M,
    image: u64,
    d: &ImageDesc,
    at: [i64; 3],
    float_result: bool,
) -> [u32; 4] {
    let ext = d.extent();
    if (0..3).any(|k| at[k] < 0 || at[k] as u64 >= ext[k]) {
        return d.format.border();
    }
    let (Some((n, _)), Some(cs)) = (d.format.layout(), d.format.channel_size()) else {
        return [0; 4];
    };
    let base = d.texel_offset(n * cs, at.map(|x| x as u64));
    let mut raw = [0u64; 4];
    match whole_texel(n, cs) {
        // One access for the texel: the checkers see one work-item's read of its bytes, not
        // one per channel (a byte access splits a word's record into four).
        Some(size) => {
            let v = m.load(image.wrapping_add(base), size);
            for (k, r) in raw.iter_mut().enumerate().take(n) {
                *r = channel(v, k, cs);
            }
        }
        None => {
            for (k, r) in raw.iter_mut().enumerate().take(n) {
                *r = m.load(image.wrapping_add(base + (k * cs) as u64), cs);
            }
        }
    }
    d.format.decode(&raw, float_result)
}

/// read_image{f,i,ui,h} with a sampler (OpImageSampleExplicitLod) or without one
/// (OpImageRead: `sampler_bits` = unnormalized, NONE, nearest).
pub(crate) fn read<M: TexelMem>(
    m: &mut M,
    image: u64,
    sampler_bits: u32,
    coords: Coords,
    float_result: bool,
) -> [u32; 4] {
    let Some(d) = m.desc(image) else {
        return [0; 4];
    };
    let ext = d.extent();
    let (axes, layer) = d.axes();
    let mut at = [0i64; 3];
    // The layer of an array: rint of a float coordinate, clamped to the layers.
    if let Some(l) = layer {
        let n = ext[2] as i64;
        at[2] = match coords {
            Coords::Int(c) => c[l],
            Coords::Float(c) => c[l].round_ties_even() as i64,
        }
        .clamp(0, n - 1);
    }
    let mode = sampler_bits & sampler::ADDRESS_MASK;
    let lin = sampler_bits & sampler::FILTER_LINEAR != 0 && float_result;
    if mode == sampler::ADDRESS_NONE && !lin {
        let (raw, inside) = raw_coords(&d, coords, sampler_bits & sampler::NORMALIZED != 0);
        if !inside {
            let e = d.format.element_size().unwrap_or(1);
            m.outside(image, signed_offset(&d, raw), e, false);
        }
    }
    let c = match coords {
        Coords::Int(c) => {
            for (k, &ax) in axes.iter().enumerate() {
                at[ax] = address(c[k], ext[ax] as i64, mode);
            }
            return fetch(m, image, &d, at, float_result);
        }
        Coords::Float(c) => c,
    };
    if !lin {
        for (k, &ax) in axes.iter().enumerate() {
            at[ax] = nearest(c[k], ext[ax] as i64, sampler_bits);
        }
        return fetch(m, image, &d, at, float_result);
    }
    let mut taps = [(
        0usize,
        Taps {
            i0: 0,
            i1: 0,
            a: 0.0,
        },
    ); 3];
    for (k, &ax) in axes.iter().enumerate() {
        taps[k] = (ax, linear(c[k], ext[ax] as i64, sampler_bits));
    }
    let taps = &taps[..axes.len()];
    let mut sum = [0f32; 4];
    for corner in 0..1usize << taps.len() {
        let mut w = 1f32;
        for (j, (ax, t)) in taps.iter().enumerate() {
            let hi = corner >> j & 1 == 1;
            at[*ax] = if hi { t.i1 } else { t.i0 };
            w *= if hi { t.a } else { 1.0 - t.a };
        }
        let texel = fetch(m, image, &d, at, true);
        for (s, v) in sum.iter_mut().zip(texel) {
            *s += w * f32::from_bits(v);
        }
    }
    sum.map(f32::to_bits)
}

/// write_image{f,i,ui,h}: integer coordinates; out of range → dropped (undefined).
pub(crate) fn write<M: TexelMem>(
    m: &mut M,
    image: u64,
    coords: [i64; 3],
    rgba: &[u32; 4],
    float_src: bool,
) {
    let Some(d) = m.desc(image) else {
        return;
    };
    let (raw, inside) = raw_coords(&d, Coords::Int(coords), false);
    if !inside {
        let e = d.format.element_size().unwrap_or(1);
        m.outside(image, signed_offset(&d, raw), e, true);
        return;
    }
    let at = raw.map(|x| x as u64);
    let (Some((n, _)), Some(cs)) = (d.format.layout(), d.format.channel_size()) else {
        return;
    };
    let raw = d.format.encode(rgba, float_src);
    let base = d.texel_offset(n * cs, at);
    match whole_texel(n, cs) {
        Some(size) => {
            let v = raw
                .iter()
                .take(n)
                .enumerate()
                .fold(0u64, |v, (k, r)| v | channel(*r, 0, cs) << (8 * cs * k));
            m.store(image.wrapping_add(base), size, v);
        }
        None => {
            for (k, r) in raw.iter().enumerate().take(n) {
                m.store(image.wrapping_add(base + (k * cs) as u64), cs, *r);
            }
        }
    }
}

/// The size of a texel of `n` channels of `cs` bytes when it moves as one scalar access
/// (1, 2, 4 or 8 bytes); `None` for the others (RGBA of 32-bit channels, 3 channels).
#[inline]
fn whole_texel(n: usize, cs: usize) -> Option<usize> {
    let size = n * cs;
    matches!(size, 1 | 2 | 4 | 8).then_some(size)
}

/// Channel `k` (of `cs` bytes) of a texel read as one little-endian scalar.
#[inline]
fn channel(v: u64, k: usize, cs: usize) -> u64 {
    let bits = 8 * cs as u32;
    let mask = 1u64.checked_shl(bits).map_or(u64::MAX, |b| b - 1);
    v.checked_shr(bits * k as u32).unwrap_or(0) & mask
}

/// What an image instruction does; its operands are the `ExtSpec` arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ImageOp {
    /// OpSampledImage: `[image, sampler]`.
    Combine,
    /// OpImageSampleExplicitLod: `[sampled image, coordinates]`.
    Sample,
    /// OpImageRead: `[image, coordinates]`.
    Read,
    /// OpImageWrite: `[image, coordinates, texel]`.
    Write,
    /// OpImageQuerySize(Lod): `[image]`.
    QuerySize,
    /// OpImageQueryOrder: `[image]`.
    QueryOrder,
    /// OpImageQueryFormat: `[image]`.
    QueryFormat,
}

/// Operand lanes of an image instruction as the executor hands them over.
#[derive(Clone, Copy)]
pub(crate) struct Operand<'a> {
    pub lanes: &'a [u64],
    pub elem: Elem,
}

#[inline]
fn coords_of(o: &Operand<'_>) -> Coords {
    let l = |k: usize| o.lanes.get(k).copied().unwrap_or(0);
    match o.elem {
        Elem::Float(32) => Coords::Float([0, 1, 2].map(|k| f32::from_bits(l(k) as u32))),
        Elem::Float(16) => {
            Coords::Float([0, 1, 2].map(|k| half::f16::from_bits(l(k) as u16).to_f32()))
        }
        Elem::Float(_) => Coords::Float([0, 1, 2].map(|k| f64::from_bits(l(k)) as f32)),
        Elem::Int(w) => Coords::Int([0, 1, 2].map(|k| crate::alu::sext(l(k), w))),
        Elem::Bool => Coords::Int([0, 1, 2].map(|k| l(k) as i64)),
    }
}

/// Executes one image instruction; `out` receives the result lanes (`elem` each).
pub(crate) fn exec<M: TexelMem>(
    m: &mut M,
    op: ImageOp,
    args: &[Operand<'_>],
    elem: Elem,
    out: &mut [u64],
) {
    let first = |k: usize| -> u64 {
        args.get(k)
            .and_then(|a| a.lanes.first())
            .copied()
            .unwrap_or(0)
    };
    let float_result = matches!(elem, Elem::Float(_));
    let put = |out: &mut [u64], v: [u32; 4]| {
        for (o, x) in out.iter_mut().zip(v) {
            *o = match elem {
                Elem::Float(16) => half::f16::from_f32(f32::from_bits(x)).to_bits() as u64,
                Elem::Float(64) => (f32::from_bits(x) as f64).to_bits(),
                _ => x as u64,
            };
        }
    };
    match op {
        ImageOp::Combine => {
            if let Some(o) = out.first_mut() {
                *o = combine(first(0), first(1));
            }
        }
        ImageOp::Sample | ImageOp::Read => {
            let (image, bits) = if op == ImageOp::Sample {
                split(first(0))
            } else {
                (first(0), sampler::FILTER_NEAREST)
            };
            let Some(c) = args.get(1) else { return };
            let v = read(m, image, bits, coords_of(c), float_result);
            put(out, v);
        }
        ImageOp::Write => {
            let (Some(c), Some(t)) = (args.get(1), args.get(2)) else {
                return;
            };
            let coords = match coords_of(c) {
                Coords::Int(c) => c,
                Coords::Float(f) => f.map(|x| x as i64),
            };
            let mut rgba = [0u32; 4];
            let float_src = matches!(t.elem, Elem::Float(_));
            for (k, x) in rgba.iter_mut().enumerate() {
                let v = t.lanes.get(k).copied().unwrap_or(0);
                *x = match t.elem {
                    Elem::Float(16) => half::f16::from_bits(v as u16).to_f32().to_bits(),
                    Elem::Float(64) => (f64::from_bits(v) as f32).to_bits(),
                    _ => v as u32,
                };
            }
            write(m, first(0), coords, &rgba, float_src);
        }
        ImageOp::QuerySize => {
            let sizes = m.desc(first(0)).map(|d| d.query_size()).unwrap_or_default();
            for (k, o) in out.iter_mut().enumerate() {
                *o = sizes.get(k).copied().unwrap_or(0);
            }
        }
        ImageOp::QueryOrder | ImageOp::QueryFormat => {
            let v = m.desc(first(0)).map_or(0, |d| {
                if op == ImageOp::QueryOrder {
                    d.format.order
                } else {
                    d.format.data_type
                }
            });
            if let Some(o) = out.first_mut() {
                *o = v as u64;
            }
        }
    }
}
