//! IEEE binary formats (f16, f32, f64) as data: exact decoding to `f64` and correctly
//! rounded encoding in any of the four rounding modes, from an arbitrary `±m·2^e`.

use super::Rounding;

/// An IEEE binary interchange format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fmt {
    /// Total width in bits.
    pub bits: u32,
    /// Explicit mantissa (fraction) bits.
    pub mant: u32,
    /// Exponent field bits.
    pub exp: u32,
}

pub const F16: Fmt = Fmt {
    bits: 16,
    mant: 10,
    exp: 5,
};
pub const F32: Fmt = Fmt {
    bits: 32,
    mant: 23,
    exp: 8,
};
pub const F64: Fmt = Fmt {
    bits: 64,
    mant: 52,
    exp: 11,
};

/// A decoded float value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoded {
    /// NaN with its sign and fraction bits (quiet bit included).
    Nan {
        neg: bool,
        payload: u64,
    },
    Inf {
        neg: bool,
    },
    /// `±m · 2^e` exactly (`m` may be 0).
    Finite {
        neg: bool,
        m: u64,
        e: i32,
    },
}

impl Fmt {
    /// The format of a float lane of `width` bits.
    pub fn of(width: u8) -> Option<Fmt> {
        match width {
            16 => Some(F16),
            32 => Some(F32),
            64 => Some(F64),
            _ => None,
        }
    }

    pub fn mask(self) -> u64 {
        if self.bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }

    pub fn sign_bit(self) -> u64 {
        1u64 << (self.bits - 1)
    }

    fn bias(self) -> i32 {
        (1i32 << (self.exp - 1)) - 1
    }

    fn exp_all_ones(self) -> u64 {
        (1u64 << self.exp) - 1
    }

    fn frac_mask(self) -> u64 {
        (1u64 << self.mant) - 1
    }

    /// Bit pattern of +infinity.
    pub fn inf(self) -> u64 {
        self.exp_all_ones() << self.mant
    }

    /// Bit pattern of the default quiet NaN.
    pub fn qnan(self) -> u64 {
        self.inf() | (1u64 << (self.mant - 1))
    }

    /// Largest finite value.
    pub fn max_finite(self) -> u64 {
        self.inf() - 1
    }

    /// A quiet NaN carrying `code` in its payload bits (OpenCL `nan(code)`).
    pub fn nan_with(self, code: u64) -> u64 {
        self.qnan() | (code & (self.frac_mask() >> 1))
    }

    pub fn decode(self, bits: u64) -> Decoded {
        let bits = bits & self.mask();
        let neg = bits & self.sign_bit() != 0;
        let field = (bits >> self.mant) & self.exp_all_ones();
        let frac = bits & self.frac_mask();
        let min_e = 1 - self.bias() - self.mant as i32;
        if field == self.exp_all_ones() {
            if frac == 0 {
                Decoded::Inf { neg }
            } else {
                Decoded::Nan { neg, payload: frac }
            }
        } else if field == 0 {
            Decoded::Finite {
                neg,
                m: frac,
                e: min_e,
            }
        } else {
            Decoded::Finite {
                neg,
                m: frac | (1u64 << self.mant),
                e: min_e + field as i32 - 1,
            }
        }
    }

    /// The exact value of `bits` as an `f64` (every f16/f32/f64 value is an f64 value).
    pub fn to_f64(self, bits: u64) -> f64 {
        match self.bits {
            32 => f64::from(f32::from_bits(bits as u32)),
            64 => f64::from_bits(bits),
            _ => match self.decode(bits) {
                Decoded::Nan { neg, payload } => {
                    let b = F64.qnan() | (payload << (F64.mant - self.mant));
                    f64::from_bits(b | if neg { F64.sign_bit() } else { 0 })
                }
                Decoded::Inf { neg } => {
                    if neg {
                        f64::NEG_INFINITY
                    } else {
                        f64::INFINITY
                    }
                }
                Decoded::Finite { neg, m, e } => {
                    let v = libm::scalbn(m as f64, e);
                    if neg {
                        -v
                    } else {
                        v
                    }
                }
            },
        }
    }

    /// `x` rounded to this format (round to nearest even), as a bit pattern.
    pub fn encode(self, x: f64) -> u64 {
        match self.bits {
            32 => u64::from((x as f32).to_bits()),
            64 => x.to_bits(),
            _ => F64.convert_to(x.to_bits(), self, Rounding::Rte),
        }
    }

    /// Rounds `x` to this format and back: the value the format would hold.
    #[cfg(test)] // only the tests compare against a rounded value
    pub fn round_f64(self, x: f64) -> f64 {
        self.to_f64(self.encode(x))
    }

    /// Converts a value of this format to `to`, rounding as `mode` says. NaNs stay
    /// (quiet) NaNs with their leading payload bits.
    pub fn convert_to(self, bits: u64, to: Fmt, mode: Rounding) -> u64 {
        match self.decode(bits) {
            Decoded::Nan { neg, payload } => {
                let p = if to.mant >= self.mant {
                    payload << (to.mant - self.mant)
                } else {
                    payload >> (self.mant - to.mant)
                };
                to.qnan() | p | if neg { to.sign_bit() } else { 0 }
            }
            Decoded::Inf { neg } => to.inf() | if neg { to.sign_bit() } else { 0 },
            Decoded::Finite { neg, m, e } => to.round(neg, u128::from(m), e, mode),
        }
    }

    /// Correctly rounds `±m·2^e` to this format in rounding mode `mode`.
    pub fn round(self, neg: bool, m: u128, e: i32, mode: Rounding) -> u64 {
        let sign = if neg { self.sign_bit() } else { 0 };
        if m == 0 {
            return sign;
        }
        let mb = self.mant as i32;
        let top = e + (127 - m.leading_zeros() as i32); // exponent of the leading bit
        let emin = 1 - self.bias();
        // Exponent of the last kept bit (the quantum).
        let q = if top < emin { emin - mb } else { top - mb };
        let shift = q - e;
        let (mut keep, up) = if shift <= 0 {
            (m << (-shift) as u32, false)
        } else {
            let (keep, rem, half) = if shift >= 128 {
                (0, m, None)
            } else {
                let s = shift as u32;
                (m >> s, m & ((1u128 << s) - 1), Some(1u128 << (s - 1)))
            };
            let up = rem != 0
                && match mode {
                    Rounding::Rtz => false,
                    Rounding::Rtp => !neg,
                    Rounding::Rtn => neg,
                    Rounding::Rte => match half {
                        None => false,
                        Some(h) => rem > h || (rem == h && keep & 1 == 1),
                    },
                };
            (keep, up)
        };
        if up {
            keep += 1;
        }
        let mut q = q;
        if keep >> (mb + 1) != 0 {
            keep >>= 1;
            q += 1;
        }
        if keep >> mb == 0 {
            // Subnormal (or rounded up into the smallest normal, handled by the carry
            // into the exponent field below).
            return sign | keep as u64;
        }
        let field = i64::from(q + mb + self.bias());
        if field >= self.exp_all_ones() as i64 {
            let to_inf = match mode {
                Rounding::Rte => true,
                Rounding::Rtz => false,
                Rounding::Rtp => !neg,
                Rounding::Rtn => neg,
            };
            return sign
                | if to_inf {
                    self.inf()
                } else {
                    self.max_finite()
                };
        }
        sign | (field as u64) << self.mant | (keep as u64 & self.frac_mask())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clstd_fmt_decode_roundtrip() {
        for &x in &[
            0.0f32,
            -0.0,
            1.0,
            -2.5,
            f32::MIN_POSITIVE,
            1e-45,
            f32::MAX,
            3.0e-39,
        ] {
            let b = u64::from(x.to_bits());
            assert_eq!(F32.to_f64(b), f64::from(x));
            assert_eq!(F32.encode(f64::from(x)), b);
            assert_eq!(
                F64.convert_to(f64::from(x).to_bits(), F32, Rounding::Rte),
                b
            );
        }
        // f16: smallest subnormal, largest finite, one.
        assert_eq!(F16.to_f64(1), 2f64.powi(-24));
        assert_eq!(F16.to_f64(0x7bff), 65504.0);
        assert_eq!(F16.to_f64(0x3c00), 1.0);
        assert_eq!(F16.encode(65504.0), 0x7bff);
        assert_eq!(F16.encode(65520.0), 0x7c00); // ties to even overflows
        assert_eq!(F16.encode(65519.0), 0x7bff);
        assert_eq!(F16.encode(2f64.powi(-25)), 0); // tie to even zero
        assert_eq!(F16.encode(2f64.powi(-25) * 1.5), 1);
        assert!(F16.to_f64(F16.encode(f64::NAN)).is_nan());
    }

    #[test]
    fn clstd_fmt_round_modes() {
        // 1 + 2^-30 to f32 in four modes.
        let m = (1u128 << 30) + 1;
        let e = -30;
        let one = u64::from(1f32.to_bits());
        assert_eq!(F32.round(false, m, e, Rounding::Rte), one);
        assert_eq!(F32.round(false, m, e, Rounding::Rtz), one);
        assert_eq!(F32.round(false, m, e, Rounding::Rtn), one);
        assert_eq!(F32.round(false, m, e, Rounding::Rtp), one + 1);
        assert_eq!(
            F32.round(true, m, e, Rounding::Rtn),
            (one + 1) | F32.sign_bit()
        );
        assert_eq!(F32.round(true, m, e, Rounding::Rtp), one | F32.sign_bit());
        // Overflow: RTZ gives max finite, RTE infinity.
        assert_eq!(F32.round(false, 1, 200, Rounding::Rtz), F32.max_finite());
        assert_eq!(F32.round(false, 1, 200, Rounding::Rte), F32.inf());
        // Tiny values: RTP gives the smallest subnormal.
        assert_eq!(F32.round(false, 1, -400, Rounding::Rtp), 1);
        assert_eq!(F32.round(false, 1, -400, Rounding::Rte), 0);
        assert_eq!(F32.round(true, 1, -400, Rounding::Rtn), 1 | F32.sign_bit());
    }
}
