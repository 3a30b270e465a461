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

/// Channel orders, numbered as SPIR-V's Image Channel Order (= `CL_R`.. minus 0x10B0).
pub mod order {
    pub const R: u32 = 0;
    pub const A: u32 = 1;
    pub const RG: u32 = 2;
    pub const RA: u32 = 3;
    pub const RGB: u32 = 4;
    pub const RGBA: u32 = 5;
    pub const BGRA: u32 = 6;
    pub const ARGB: u32 = 7;
    pub const INTENSITY: u32 = 8;
    pub const LUMINANCE: u32 = 9;
    pub const RGBX: u32 = 12;
    pub const SRGBA: u32 = 17;
    pub const SBGRA: u32 = 18;
    pub const ABGR: u32 = 19;
}

/// Channel data types, numbered as SPIR-V's Image Channel Data Type (= `CL_SNORM_INT8`..
/// minus 0x10D0).
pub mod dtype {
    pub const SNORM_INT8: u32 = 0;
    pub const SNORM_INT16: u32 = 1;
    pub const UNORM_INT8: u32 = 2;
    pub const UNORM_INT16: u32 = 3;
    pub const UNORM_SHORT_565: u32 = 4;
    pub const UNORM_SHORT_555: u32 = 5;
    pub const UNORM_INT_101010: u32 = 6;
    pub const SIGNED_INT8: u32 = 7;
    pub const SIGNED_INT16: u32 = 8;
    pub const SIGNED_INT32: u32 = 9;
    pub const UNSIGNED_INT8: u32 = 10;
    pub const UNSIGNED_INT16: u32 = 11;
    pub const UNSIGNED_INT32: u32 = 12;
    pub const HALF_FLOAT: u32 = 13;
    pub const FLOAT: u32 = 14;
}

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

/// A channel order and data type (`cl_image_format`, in SPIR-V numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageFormat {
    pub order: u32,
    pub data_type: u32,
}

/// Where each of R, G, B, A comes from: a channel index in memory, or the default.
type Swizzle = [Option<usize>; 4];

impl ImageFormat {
    /// Channels in memory and where R, G, B, A are among them; `None`: order unsupported.
    fn layout(self) -> Option<(usize, Swizzle)> {
        use order::*;
        Some(match self.order {
            R => (1, [Some(0), None, None, None]),
            A => (1, [None, None, None, Some(0)]),
            RG => (2, [Some(0), Some(1), None, None]),
            RA => (2, [Some(0), None, None, Some(1)]),
            RGBA | SRGBA => (4, [Some(0), Some(1), Some(2), Some(3)]),
            BGRA | SBGRA => (4, [Some(2), Some(1), Some(0), Some(3)]),
            ARGB => (4, [Some(1), Some(2), Some(3), Some(0)]),
            ABGR => (4, [Some(3), Some(2), Some(1), Some(0)]),
            // Packed formats: one word holds R, G and B (see `packed`).
            RGB | RGBX => (1, [Some(0), Some(0), Some(0), None]),
            INTENSITY => (1, [Some(0), Some(0), Some(0), Some(0)]),
            LUMINANCE => (1, [Some(0), Some(0), Some(0), None]),
            _ => return None,
        })
    }

    /// Bytes of one channel; `None`: data type unsupported.
    pub fn channel_size(self) -> Option<usize> {
        use dtype::*;
        Some(match self.data_type {
            SNORM_INT8 | UNORM_INT8 | SIGNED_INT8 | UNSIGNED_INT8 => 1,
            SNORM_INT16 | UNORM_INT16 | SIGNED_INT16 | UNSIGNED_INT16 | HALF_FLOAT => 2,
            UNORM_SHORT_565 | UNORM_SHORT_555 => 2,
            SIGNED_INT32 | UNSIGNED_INT32 | FLOAT | UNORM_INT_101010 => 4,
            _ => return None,
        })
    }

    /// Bytes of one texel, when the format is one ShadowCL implements.
    pub fn element_size(self) -> Option<usize> {
        self.is_supported()
            .then(|| Some(self.layout()?.0 * self.channel_size()?))
            .flatten()
    }

    /// Bit position and width of R, G and B in a packed texel word.
    fn packed(self) -> Option<[(u32, u32); 3]> {
        match self.data_type {
            dtype::UNORM_SHORT_565 => Some([(11, 5), (5, 6), (0, 5)]),
            dtype::UNORM_SHORT_555 => Some([(10, 5), (5, 5), (0, 5)]),
            dtype::UNORM_INT_101010 => Some([(20, 10), (10, 10), (0, 10)]),
            _ => None,
        }
    }

    /// sRGB orders: R, G and B are stored non-linearly (§8.3.1.1 / §8.3.2.1).
    fn is_srgb(self) -> bool {
        matches!(self.order, order::SRGBA | order::SBGRA)
    }

    fn is_integer(self) -> bool {
        (dtype::SIGNED_INT8..=dtype::UNSIGNED_INT32).contains(&self.data_type)
    }

    fn is_signed_integer(self) -> bool {
        (dtype::SIGNED_INT8..=dtype::SIGNED_INT32).contains(&self.data_type)
    }

    /// The combinations the specification allows (§5.3.1.1): BGRA/ARGB/ABGR take 8-bit
    /// channels only, INTENSITY/LUMINANCE normalized or float ones.
    pub fn is_supported(self) -> bool {
        use dtype::*;
        use order::*;
        if self.layout().is_none() || self.channel_size().is_none() {
            return false;
        }
        if self.packed().is_some() != matches!(self.order, RGB | RGBX) {
            return false;
        }
        match self.order {
            BGRA | ARGB | ABGR => self.channel_size() == Some(1),
            SRGBA | SBGRA => self.data_type == UNORM_INT8,
            INTENSITY | LUMINANCE => matches!(
                self.data_type,
                UNORM_INT8 | UNORM_INT16 | SNORM_INT8 | SNORM_INT16 | HALF_FLOAT | FLOAT
            ),
            _ => true,
        }
    }

    /// The formats ShadowCL implements, for `clGetSupportedImageFormats`.
    pub fn all_supported() -> Vec<ImageFormat> {
        let mut v = vec![];
        for order in [
            order::RGBA,
            order::BGRA,
            order::RGB,
            order::RGBX,
            order::R,
            order::RG,
            order::A,
            order::RA,
            order::ARGB,
            order::ABGR,
            order::INTENSITY,
            order::LUMINANCE,
            order::SRGBA,
            order::SBGRA,
        ] {
            for data_type in dtype::SNORM_INT8..=dtype::FLOAT {
                let f = ImageFormat { order, data_type };
                if f.is_supported() {
                    v.push(f);
                }
            }
        }
        v
    }

    /// Border colour of `CLK_ADDRESS_CLAMP`: zero, with alpha 1 when the order has none.
    fn border(self) -> [u32; 4] {
        let has_alpha = self.layout().is_some_and(|(_, s)| s[3].is_some());
        let one = if self.is_integer() { 1 } else { 1f32.to_bits() };
        [0, 0, 0, if has_alpha { 0 } else { one }]
    }

    /// Raw channels (memory order) → R, G, B, A as f32 bits (`float_result`) or as 32-bit
    /// integers (sign-extended for signed formats).
    pub fn decode(self, raw: &[u64; 4], float_result: bool) -> [u32; 4] {
        let Some((_, sw)) = self.layout() else {
            return [0; 4];
        };
        if let Some(fields) = self.packed() {
            let mut out = [0f32, 0.0, 0.0, 1.0];
            for (o, (at, bits)) in out.iter_mut().zip(fields) {
                *o = ((raw[0] >> at) & ((1 << bits) - 1)) as f32 / ((1u32 << bits) - 1) as f32;
            }
            return if float_result {
                out.map(f32::to_bits)
            } else {
                out.map(|v| v as i32 as u32)
            };
        }
        let int = self.is_integer();
        let conv = |r: u64| -> u32 {
            use dtype::*;
            let f = match self.data_type {
                SNORM_INT8 => ((r as u8 as i8) as f32 / 127.0).max(-1.0),
                SNORM_INT16 => ((r as u16 as i16) as f32 / 32767.0).max(-1.0),
                UNORM_INT8 => (r as u8) as f32 / 255.0,
                UNORM_INT16 => (r as u16) as f32 / 65535.0,
                HALF_FLOAT => half::f16::from_bits(r as u16).to_f32(),
                FLOAT => f32::from_bits(r as u32),
                SIGNED_INT8 => return (r as u8 as i8) as i32 as u32,
                SIGNED_INT16 => return (r as u16 as i16) as i32 as u32,
                _ => return r as u32,
            };
            f.to_bits()
        };
        let srgb = self.is_srgb();
        let mut out = [0u32; 4];
        for (c, o) in out.iter_mut().enumerate() {
            *o = match sw[c] {
                Some(k) if srgb && c < 3 => srgb_to_linear(f32::from_bits(conv(raw[k]))).to_bits(),
                Some(k) => conv(raw[k]),
                None if c == 3 && int => 1,
                None if c == 3 => 1f32.to_bits(),
                None => 0,
            };
        }
        // Reading a float format with read_image{i,ui} (or the reverse) is undefined; give
        // the numeric value rather than raw bits.
        if float_result && int {
            out = out.map(|v| {
                if self.is_signed_integer() {
                    (v as i32 as f32).to_bits()
                } else {
                    (v as f32).to_bits()
                }
            });
        } else if !float_result && !int {
            out = out.map(|v| f32::from_bits(v) as i32 as u32);
        }
        out
    }

    /// R, G, B, A (f32 bits when `float_src`, else 32-bit integers) → raw channels in
    /// memory order, with the conversions and saturation of §8.3.
    pub fn encode(self, rgba: &[u32; 4], float_src: bool) -> [u64; 4] {
        let Some((n, sw)) = self.layout() else {
            return [0; 4];
        };
        let mut raw = [0u64; 4];
        if let Some(fields) = self.packed() {
            for (c, (at, bits)) in fields.into_iter().enumerate() {
                let max = ((1u32 << bits) - 1) as f32;
                let v = self.unit(rgba[c], float_src) * max;
                let q = if v.is_nan() {
                    0
                } else {
                    v.clamp(0.0, max).round_ties_even() as u64
                };
                raw[0] |= q << at;
            }
            return raw;
        }
        for (k, r) in raw.iter_mut().enumerate().take(n) {
            // The first of R, G, B, A stored in memory channel k.
            let Some(c) = sw.iter().position(|s| *s == Some(k)) else {
                continue;
            };
            let v = if self.is_srgb() && c < 3 && float_src {
                linear_to_srgb(f32::from_bits(rgba[c])).to_bits()
            } else {
                rgba[c]
            };
            *r = self.encode_channel(v, float_src);
        }
        raw
    }

    fn encode_channel(self, v: u32, float_src: bool) -> u64 {
        use dtype::*;
        let f = f32::from_bits(v);
        // Round to nearest even and saturate (convert_T_sat_rte); NaN gives 0.
        let sat = |x: f32, lo: f32, hi: f32| -> i64 {
            if x.is_nan() {
                0
            } else {
                x.clamp(lo, hi).round_ties_even() as i64
            }
        };
        let int = |lo: i64, hi: i64| -> i64 {
            if float_src {
                sat(f, lo as f32, hi as f32)
            } else if self.is_signed_integer() {
                (v as i32 as i64).clamp(lo, hi)
            } else {
                (v as i64).clamp(lo, hi)
            }
        };
        let bits = match self.data_type {
            SNORM_INT8 => sat(self.unit(v, float_src) * 127.0, -128.0, 127.0),
            SNORM_INT16 => sat(self.unit(v, float_src) * 32767.0, -32768.0, 32767.0),
            UNORM_INT8 => sat(self.unit(v, float_src) * 255.0, 0.0, 255.0),
            UNORM_INT16 => sat(self.unit(v, float_src) * 65535.0, 0.0, 65535.0),
            HALF_FLOAT => half::f16::from_f32(self.unit(v, float_src)).to_bits() as i64,
            FLOAT => self.unit(v, float_src).to_bits() as i64,
            SIGNED_INT8 => int(-128, 127),
            SIGNED_INT16 => int(-32768, 32767),
            SIGNED_INT32 => int(i32::MIN as i64, i32::MAX as i64),
            UNSIGNED_INT8 => int(0, 255),
            UNSIGNED_INT16 => int(0, 65535),
            _ => int(0, u32::MAX as i64),
        };
        bits as u64 & ((1u64 << (8 * self.channel_size().unwrap_or(4))) - 1)
    }

    /// A channel value as a float (integer sources of a float format: numeric value).
    fn unit(self, v: u32, float_src: bool) -> f32 {
        if float_src {
            f32::from_bits(v)
        } else {
            v as i32 as f32
        }
    }
}

/// sRGB → linear (OpenCL 1.2 §8.3.1.1).
fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear → sRGB (§8.3.2.1), NaN and out-of-range values clamped by the UNORM conversion.
fn linear_to_srgb(c: f32) -> f32 {
    if c.is_nan() {
        c
    } else if c <= 0.003_130_8 {
        12.92 * c
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
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
    pub fn offset(&self, [x, y, z]: [u64; 3]) -> u64 {
        let e = self.format.element_size().unwrap_or(0) as u64;
        self.base + x * e + y * self.row_pitch + z * self.slice_pitch
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
    let base = d.offset([at[0] as u64, at[1] as u64, at[2] as u64]);
    let mut raw = [0u64; 4];
    for (k, r) in raw.iter_mut().enumerate().take(n) {
        *r = m.load(image.wrapping_add(base + (k * cs) as u64), cs);
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
    let base = d.offset(at);
    for (k, r) in raw.iter().enumerate().take(n) {
        m.store(image.wrapping_add(base + (k * cs) as u64), cs, *r);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    const RGBA_F: ImageFormat = ImageFormat {
        order: order::RGBA,
        data_type: dtype::FLOAT,
    };

    /// Memory of one image at launch index 1, texels as a plain byte vector.
    struct Mem {
        desc: ImageDesc,
        bytes: Vec<u8>,
        loads: usize,
        outside: Vec<(i64, usize, bool)>,
    }

    impl TexelMem for Mem {
        fn desc(&self, image: u64) -> Option<ImageDesc> {
            (ptr::dec(image).1 == 1).then_some(self.desc)
        }
        fn load(&mut self, p: u64, n: usize) -> u64 {
            self.loads += 1;
            let o = ptr::dec(p).2 as usize;
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(&self.bytes[o..o + n]);
            u64::from_le_bytes(w)
        }
        fn store(&mut self, p: u64, n: usize, v: u64) {
            let o = ptr::dec(p).2 as usize;
            self.bytes[o..o + n].copy_from_slice(&v.to_le_bytes()[..n]);
        }
        fn outside(&mut self, _: u64, offset: i64, size: usize, write: bool) {
            self.outside.push((offset, size, write));
        }
    }

    fn img() -> u64 {
        ptr::enc(ptr::TAG_LAUNCH, 1, 0)
    }

    /// A 2x2 RGBA float image whose red channel holds 0, 1 / 2, 3 (piglit's sampler.cl).
    fn ramp() -> Mem {
        let desc = ImageDesc::packed(ImageDim::D2, RGBA_F, [2, 2, 1], 1).unwrap();
        let mut bytes = vec![];
        for v in [0f32, 1.0, 2.0, 3.0] {
            for c in [v, v, v, 1.0] {
                bytes.extend_from_slice(&c.to_le_bytes());
            }
        }
        Mem {
            desc,
            bytes,
            loads: 0,
            outside: vec![],
        }
    }

    fn red(m: &mut Mem, bits: u32, c: [f32; 2]) -> f32 {
        f32::from_bits(read(m, img(), bits, Coords::Float([c[0], c[1], 0.0]), true)[0])
    }

    #[test]
    fn linear_filtering_matches_hand_computed_values() {
        let mut m = ramp();
        let lin = sampler::FILTER_LINEAR;
        // Unnormalized: texel centres at .5; (1.0, 0.5) is halfway between 0 and 1.
        assert_eq!(red(&mut m, lin, [0.5, 0.5]), 0.0);
        assert_eq!(red(&mut m, lin, [1.0, 0.5]), 0.5);
        assert_eq!(red(&mut m, lin, [1.0, 1.0]), 1.5);
        assert_eq!(red(&mut m, lin, [0.5, 1.0]), 1.0);
        // Normalized: the same points divided by the size.
        let n = lin | sampler::NORMALIZED;
        assert_eq!(red(&mut m, n, [0.25, 0.25]), 0.0);
        assert_eq!(red(&mut m, n, [0.5, 0.5]), 1.5);
        // Repeat wraps: u = 0 sits between texel 1 (left, wrapped) and texel 0.
        let r = n | sampler::REPEAT;
        assert_eq!(red(&mut m, r, [0.0, 0.25]), 0.5);
        assert_eq!(red(&mut m, r, [1.25, 0.25]), 0.0);
    }

    #[test]
    fn nearest_addressing_modes() {
        let mut m = ramp();
        let cte = sampler::FILTER_NEAREST | sampler::CLAMP_TO_EDGE;
        assert_eq!(red(&mut m, cte, [-1.0, -1.0]), 0.0);
        assert_eq!(red(&mut m, cte, [3.0, -1.0]), 1.0);
        assert_eq!(red(&mut m, cte, [3.0, 3.0]), 3.0);
        assert_eq!(red(&mut m, cte, [-1.0, 3.0]), 2.0);
        // CLAMP: the border colour (RGBA has alpha: all zero), with no memory access.
        let loads = m.loads;
        let c = sampler::FILTER_NEAREST | sampler::CLAMP;
        let b = read(&mut m, img(), c, Coords::Float([5.0, 0.5, 0.0]), true);
        assert_eq!(b, [0; 4]);
        assert_eq!(m.loads, loads);
        // Normalized repeat and mirrored repeat.
        let rep = sampler::NORMALIZED | sampler::REPEAT;
        assert_eq!(red(&mut m, rep, [1.75, 0.25]), 1.0);
        assert_eq!(red(&mut m, rep, [-0.25, 0.25]), 1.0);
        let mir = sampler::NORMALIZED | sampler::MIRRORED_REPEAT;
        assert_eq!(red(&mut m, mir, [1.25, 0.25]), 1.0);
        assert_eq!(red(&mut m, mir, [-0.25, 0.25]), 0.0);
        // Out of range is reported only for NONE (undefined there) and then contained:
        // clamped, never outside the image.
        assert!(m.outside.is_empty());
        assert_eq!(red(&mut m, sampler::FILTER_NEAREST, [99.0, -7.0]), 1.0);
        let i = read(&mut m, img(), 0x10, Coords::Int([-5, 9, 0]), true);
        assert_eq!(f32::from_bits(i[0]), 2.0);
        // (99, -7) at 16 bytes per texel and 32 per row; (-5, 9) likewise.
        assert_eq!(
            m.outside,
            [(99 * 16 - 7 * 32, 16, false), (-5 * 16 + 9 * 32, 16, false)]
        );
    }

    #[test]
    fn format_conversions_round_trip() {
        let f = |order, data_type| ImageFormat { order, data_type };
        let u8f = f(order::RGBA, dtype::UNORM_INT8);
        let raw = u8f.encode(&[0.0f32, 0.5, 1.0, 2.0].map(f32::to_bits), true);
        assert_eq!(raw, [0, 128, 255, 255]);
        let back = u8f.decode(&raw, true).map(f32::from_bits);
        assert_eq!(back, [0.0, 128.0 / 255.0, 1.0, 1.0]);
        let s8 = f(order::RGBA, dtype::SNORM_INT8);
        let raw = s8.encode(&[-1.0f32, -2.0, 0.5, 1.0].map(f32::to_bits), true);
        assert_eq!(raw, [0x81, 0x80, 64, 127]);
        assert_eq!(s8.decode(&raw, true)[1], (-1.0f32).to_bits());
        let u16f = f(order::RGBA, dtype::UNORM_INT16);
        assert_eq!(u16f.encode(&[1f32.to_bits(); 4], true)[0], 65535);
        let i8f = f(order::RGBA, dtype::SIGNED_INT8);
        let raw = i8f.encode(&[-300i32, -1, 5, 200].map(|x| x as u32), false);
        assert_eq!(raw, [0x80, 0xFF, 5, 0x7F]);
        assert_eq!(
            i8f.decode(&raw, false),
            [-128i32, -1, 5, 127].map(|x| x as u32)
        );
        let u32f = f(order::RGBA, dtype::UNSIGNED_INT32);
        let v = [0u32, 1, u32::MAX, 7];
        assert_eq!(u32f.decode(&u32f.encode(&v, false), false), v);
        let h = f(order::RGBA, dtype::HALF_FLOAT);
        let v = [0.5f32, -2.0, 65504.0, 0.25].map(f32::to_bits);
        assert_eq!(h.decode(&h.encode(&v, true), true), v);
        // BGRA swaps red and blue in memory; R has defaults 0, 0, 1 for G, B, A.
        let bgra = f(order::BGRA, dtype::UNORM_INT8);
        assert_eq!(
            bgra.encode(&[1f32, 0.0, 0.0, 1.0].map(f32::to_bits), true),
            [0, 0, 255, 255]
        );
        let r = f(order::R, dtype::FLOAT);
        assert_eq!(
            r.decode(&[2f32.to_bits() as u64, 0, 0, 0], true)
                .map(f32::from_bits),
            [2.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(r.border(), [0, 0, 0, 1f32.to_bits()]);
        // sRGB: stored non-linearly, alpha linear; 0.5 linear is 188 in sRGB.
        let srgb = f(order::SRGBA, dtype::UNORM_INT8);
        let raw = srgb.encode(&[0.5f32, 0.0, 1.0, 0.5].map(f32::to_bits), true);
        assert_eq!(raw, [188, 0, 255, 128]);
        let back = srgb.decode(&raw, true).map(f32::from_bits);
        assert!((back[0] - 0.5).abs() < 0.005 && back[2] == 1.0, "{back:?}");
        assert!(!f(order::SRGBA, dtype::UNORM_INT16).is_supported());
        // Packed RGB: 565 keeps 5/6/5 bits, 101010 10 each; alpha reads as 1.
        let p565 = f(order::RGB, dtype::UNORM_SHORT_565);
        let raw = p565.encode(&[1f32, 0.5, 0.0, 0.0].map(f32::to_bits), true);
        assert_eq!(raw[0], (31 << 11) | (32 << 5));
        let back = p565.decode(&raw, true).map(f32::from_bits);
        assert_eq!(back, [1.0, 32.0 / 63.0, 0.0, 1.0]);
        let p10 = f(order::RGBX, dtype::UNORM_INT_101010);
        let raw = p10.encode(&[0f32, 1.0, 0.25, 1.0].map(f32::to_bits), true);
        assert_eq!(raw[0], (1023 << 10) | 256);
        assert_eq!(p10.element_size(), Some(4));
        assert!(!f(order::RGB, dtype::UNORM_INT8).is_supported());
        assert!(!f(order::RGBA, dtype::UNORM_SHORT_565).is_supported());
        // Formats outside the specification's combinations are refused.
        assert!(!f(order::BGRA, dtype::FLOAT).is_supported());
        assert!(!f(order::INTENSITY, dtype::SIGNED_INT8).is_supported());
        assert!(ImageFormat::all_supported().contains(&f(order::BGRA, dtype::UNORM_INT8)));
    }

    #[test]
    fn writes_then_reads_and_queries_a_3d_image() {
        let desc = ImageDesc::packed(
            ImageDim::D3,
            ImageFormat {
                order: order::RGBA,
                data_type: dtype::UNSIGNED_INT8,
            },
            [4, 3, 2],
            1,
        )
        .unwrap();
        assert_eq!(desc.byte_len(), Some(4 * 3 * 2 * 4));
        let mut at8 = desc;
        at8.base = 8;
        assert_eq!((at8.byte_len(), at8.offset([1, 0, 0])), (Some(104), 12));
        let mut m = Mem {
            desc,
            bytes: vec![0; 96],
            loads: 0,
            outside: vec![],
        };
        write(&mut m, img(), [3, 2, 1], &[1, 2, 300, 4], false);
        assert_eq!(&m.bytes[92..96], &[1, 2, 255, 4]);
        // Out of range: reported and dropped.
        write(&mut m, img(), [4, 0, 0], &[9; 4], false);
        assert!(m.bytes[..92].iter().all(|b| *b == 0));
        assert_eq!(m.outside, [(16, 4, true)]);
        let v = read(&mut m, img(), 0x10, Coords::Int([3, 2, 1]), false);
        assert_eq!(v, [1, 2, 255, 4]);
        let mut out = [0u64; 4];
        let a = [Operand {
            lanes: &[img()],
            elem: Elem::Int(64),
        }];
        exec(&mut m, ImageOp::QuerySize, &a, Elem::Int(32), &mut out);
        assert_eq!(out, [4, 3, 2, 0]);
        exec(
            &mut m,
            ImageOp::QueryOrder,
            &a,
            Elem::Int(32),
            &mut out[..1],
        );
        assert_eq!(out[0], order::RGBA as u64);
        // A sampled image keeps its image and sampler.
        let s = combine(img(), 0x2B);
        assert_eq!(split(s), (img(), 0x2B));
    }
}
