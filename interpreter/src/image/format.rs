//! Image formats: channel orders and data types, and the conversions between texels in
//! memory and R, G, B, A values (OpenCL 1.2 §8.3).

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

/// A channel order and data type (`cl_image_format`, in SPIR-V numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageFormat {
    pub order: u32,
    pub data_type: u32,
}

/// Where each of R, G, B, A comes from: a channel index in memory, or the default.
pub(super) type Swizzle = [Option<usize>; 4];

impl ImageFormat {
    /// Channels in memory and where R, G, B, A are among them; `None`: order unsupported.
    pub(super) fn layout(self) -> Option<(usize, Swizzle)> {
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
    pub(super) fn packed(self) -> Option<[(u32, u32); 3]> {
        match self.data_type {
            dtype::UNORM_SHORT_565 => Some([(11, 5), (5, 6), (0, 5)]),
            dtype::UNORM_SHORT_555 => Some([(10, 5), (5, 5), (0, 5)]),
            dtype::UNORM_INT_101010 => Some([(20, 10), (10, 10), (0, 10)]),
            _ => None,
        }
    }

    /// sRGB orders: R, G and B are stored non-linearly (§8.3.1.1 / §8.3.2.1).
    pub(super) fn is_srgb(self) -> bool {
        matches!(self.order, order::SRGBA | order::SBGRA)
    }

    pub(super) fn is_integer(self) -> bool {
        (dtype::SIGNED_INT8..=dtype::UNSIGNED_INT32).contains(&self.data_type)
    }

    pub(super) fn is_signed_integer(self) -> bool {
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
    pub(super) fn border(self) -> [u32; 4] {
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

    pub(super) fn encode_channel(self, v: u32, float_src: bool) -> u64 {
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
    pub(super) fn unit(self, v: u32, float_src: bool) -> f32 {
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
