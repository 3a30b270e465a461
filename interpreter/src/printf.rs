//! OpenCL C `printf`: C conversions plus the vector specifier `%vN` (elements joined by `,`).

use crate::alu::{sext, to_f64};
use crate::clstd::Elem;

/// One printf argument as the kernel passed it.
pub(crate) struct PArg<'a> {
    pub elem: Elem,
    pub lanes: &'a [u64],
}

#[derive(Default, Clone, Copy)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
}

/// Formats `fmt` with `args`; `string_at` reads a C string through a pointer for `%s`.
pub(crate) fn format(
    fmt: &[u8],
    args: &[PArg<'_>],
    string_at: &mut dyn FnMut(u64) -> Vec<u8>,
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut ai = 0;
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        if fmt.get(i) == Some(&b'%') {
            out.push(b'%');
            i += 1;
            continue;
        }
        let start = i - 1;
        let mut sp = Spec::default();
        while let Some(&f) = fmt.get(i) {
            match f {
                b'-' => sp.left = true,
                b'+' => sp.plus = true,
                b' ' => sp.space = true,
                b'#' => sp.alt = true,
                b'0' => sp.zero = true,
                _ => break,
            }
            i += 1;
        }
        while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
            sp.width = sp
                .width
                .saturating_mul(10)
                .saturating_add((d - b'0') as usize);
            i += 1;
        }
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            let mut p = 0usize;
            while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                p = p.saturating_mul(10).saturating_add((d - b'0') as usize);
                i += 1;
            }
            sp.prec = Some(p.min(512));
        }
        sp.width = sp.width.min(4096);
        let mut vec_n = 0usize;
        if fmt.get(i) == Some(&b'v') {
            i += 1;
            while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                vec_n = vec_n * 10 + (d - b'0') as usize;
                i += 1;
            }
        }
        let mut len = String::new();
        while let Some(&l) = fmt.get(i).filter(|l| b"hlzjtL".contains(l)) {
            len.push(l as char);
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.extend_from_slice(&fmt[start..]);
            break;
        };
        i += 1;
        let Some(arg) = args.get(ai) else {
            out.extend_from_slice(&fmt[start..i]);
            continue;
        };
        ai += 1;
        let lanes: &[u64] = if vec_n > 0 {
            &arg.lanes[..vec_n.min(arg.lanes.len())]
        } else {
            &arg.lanes[..1.min(arg.lanes.len())]
        };
        let bits = match arg.elem {
            Elem::Bool => 8,
            Elem::Int(w) | Elem::Float(w) => w,
        };
        // Integer width from the length modifier (vectors: hh, h, hl, l), else the argument's.
        let iw = match len.as_str() {
            "hh" => 8,
            "h" => 16,
            "hl" => 32,
            "l" | "ll" | "z" | "j" | "t" => 64,
            _ if vec_n > 0 => bits,
            _ => bits.min(32).max(if bits == 64 { 64 } else { 32 }),
        };
        let mut parts: Vec<Vec<u8>> = vec![];
        for &v in lanes {
            let s = match conv {
                b'd' | b'i' => {
                    let x = sext(v, bits.min(iw));
                    int_fmt(x < 0, x.unsigned_abs(), 10, false, &sp)
                }
                b'u' | b'o' | b'x' | b'X' => {
                    let x = v & crate::alu::mask(iw.min(bits));
                    let base = match conv {
                        b'o' => 8,
                        b'u' => 10,
                        _ => 16,
                    };
                    int_fmt(false, x, base, conv == b'X', &sp)
                }
                b'c' => vec![v as u8],
                b'p' => {
                    let mut s = sp;
                    s.alt = true;
                    int_fmt(false, v, 16, false, &s)
                }
                b's' => {
                    let mut s = string_at(v);
                    if let Some(p) = sp.prec {
                        s.truncate(p);
                    }
                    s
                }
                b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                    let x = match arg.elem {
                        Elem::Float(w) => to_f64(v, w),
                        Elem::Int(w) => sext(v, w) as f64,
                        Elem::Bool => v as f64,
                    };
                    float_fmt(x, conv, &sp)
                }
                _ => fmt[start..i].to_vec(),
            };
            parts.push(pad(s, &sp, conv));
        }
        out.extend_from_slice(&parts.join(&b','));
    }
    out
}

fn pad(s: Vec<u8>, sp: &Spec, conv: u8) -> Vec<u8> {
    if s.len() >= sp.width {
        return s;
    }
    let n = sp.width - s.len();
    let numeric = b"diuoxXfFeEgGaA".contains(&conv);
    if sp.left {
        let mut s = s;
        s.extend(std::iter::repeat_n(b' ', n));
        s
    } else if sp.zero && numeric && !(sp.prec.is_some() && b"diuoxX".contains(&conv)) {
        // Zeros go after the sign / 0x prefix.
        let pre = s
            .iter()
            .take_while(|c| matches!(c, b'-' | b'+' | b' '))
            .count();
        let pre = if s[pre..].starts_with(b"0x") || s[pre..].starts_with(b"0X") {
            pre + 2
        } else {
            pre
        };
        if s[pre..]
            .iter()
            .any(|c| c.is_ascii_alphabetic() && !b"xXabcdefABCDEFp".contains(c))
        {
            let mut r = vec![b' '; n];
            r.extend(s);
            return r;
        }
        let mut r = s[..pre].to_vec();
        r.extend(std::iter::repeat_n(b'0', n));
        r.extend_from_slice(&s[pre..]);
        r
    } else {
        let mut r = vec![b' '; n];
        r.extend(s);
        r
    }
}

fn sign_prefix(neg: bool, sp: &Spec) -> &'static str {
    if neg {
        "-"
    } else if sp.plus {
        "+"
    } else if sp.space {
        " "
    } else {
        ""
    }
}

fn int_fmt(neg: bool, x: u64, base: u32, upper: bool, sp: &Spec) -> Vec<u8> {
    let mut digits = match base {
        8 => format!("{x:o}"),
        16 if upper => format!("{x:X}"),
        16 => format!("{x:x}"),
        _ => format!("{x}"),
    };
    if let Some(p) = sp.prec {
        if p == 0 && x == 0 {
            digits.clear();
        }
        while digits.len() < p {
            digits.insert(0, '0');
        }
    }
    let mut s = sign_prefix(neg, sp).to_string();
    if sp.alt && x != 0 {
        match base {
            8 if !digits.starts_with('0') => s.push('0'),
            16 => s.push_str(if upper { "0X" } else { "0x" }),
            _ => {}
        }
    }
    s.push_str(&digits);
    s.into_bytes()
}

fn exp_fmt(x: f64, p: usize, upper: bool) -> String {
    let s = format!("{:.*e}", p, x);
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let r = format!(
        "{m}e{}{:02}",
        if e < 0 { '-' } else { '+' },
        e.unsigned_abs()
    );
    if upper {
        r.to_uppercase()
    } else {
        r
    }
}

fn strip_zeros(s: String) -> String {
    if !s.contains('.') {
        return s;
    }
    let (m, e) = match s.find(['e', 'E']) {
        Some(k) => (s[..k].to_string(), s[k..].to_string()),
        None => (s.clone(), String::new()),
    };
    let m = m.trim_end_matches('0').trim_end_matches('.').to_string();
    m + &e
}

fn float_fmt(x: f64, conv: u8, sp: &Spec) -> Vec<u8> {
    let upper = conv.is_ascii_uppercase();
    let neg = x.is_sign_negative();
    let a = x.abs();
    let body = if a.is_nan() {
        "nan".to_string()
    } else if a.is_infinite() {
        "inf".to_string()
    } else {
        let p = sp.prec.unwrap_or(6);
        match conv.to_ascii_lowercase() {
            b'f' => format!("{:.*}", p, a),
            b'e' => exp_fmt(a, p, false),
            b'g' => {
                let p = if p == 0 { 1 } else { p };
                let e = if a == 0.0 {
                    0
                } else {
                    let s = exp_fmt(a, p - 1, false);
                    s.split_once('e')
                        .and_then(|(_, e)| e.parse::<i32>().ok())
                        .unwrap_or(0)
                };
                let s = if e < -4 || e >= p as i32 {
                    exp_fmt(a, p - 1, false)
                } else {
                    format!("{:.*}", (p as i32 - 1 - e).max(0) as usize, a)
                };
                if sp.alt {
                    s
                } else {
                    strip_zeros(s)
                }
            }
            _ => hex_float(a, sp.prec),
        }
    };
    let body = if upper { body.to_uppercase() } else { body };
    let mut s = sign_prefix(neg && !x.is_nan(), sp).to_string();
    s.push_str(&body);
    s.into_bytes()
}

fn hex_float(a: f64, prec: Option<usize>) -> String {
    if a == 0.0 {
        return match prec {
            Some(p) if p > 0 => format!("0x0.{}p+0", "0".repeat(p)),
            _ => "0x0p+0".into(),
        };
    }
    let bits = a.to_bits();
    let mut exp = ((bits >> 52) & 0x7ff) as i64;
    let mut mant = bits & ((1u64 << 52) - 1);
    let lead = if exp == 0 {
        // Subnormal: normalise.
        let shift = mant.leading_zeros() - 11;
        mant = (mant << shift) & ((1u64 << 52) - 1);
        exp = 1 - shift as i64;
        1
    } else {
        1
    };
    let e = exp - 1023;
    let mut digits = format!("{mant:013x}");
    match prec {
        Some(p) => {
            if p < 13 {
                // Round to nearest on the dropped hex digits.
                let keep = (mant >> (4 * (13 - p))) + ((mant >> (4 * (13 - p) - 1)) & 1);
                digits = if p == 0 {
                    String::new()
                } else {
                    format!("{:0width$x}", keep, width = p)
                };
            } else {
                digits.push_str(&"0".repeat(p - 13));
            }
        }
        None => digits = digits.trim_end_matches('0').to_string(),
    }
    let dot = if digits.is_empty() { "" } else { "." };
    format!(
        "0x{lead}{dot}{digits}p{}{}",
        if e < 0 { '-' } else { '+' },
        e.abs()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(fmt: &str, args: &[PArg<'_>]) -> String {
        String::from_utf8(format(fmt.as_bytes(), args, &mut |_| b"str".to_vec())).unwrap()
    }

    #[test]
    fn c_conversions() {
        let i = |v: i32| [v as u32 as u64];
        let neg = i(-42);
        let f = [(1.5f64).to_bits()];
        assert_eq!(
            run(
                "a=%d b=%5d c=%-4d| %x %08.3f %e %g %s %%",
                &[
                    PArg {
                        elem: Elem::Int(32),
                        lanes: &neg
                    },
                    PArg {
                        elem: Elem::Int(32),
                        lanes: &i(7)
                    },
                    PArg {
                        elem: Elem::Int(32),
                        lanes: &i(3)
                    },
                    PArg {
                        elem: Elem::Int(32),
                        lanes: &i(255)
                    },
                    PArg {
                        elem: Elem::Float(64),
                        lanes: &f
                    },
                    PArg {
                        elem: Elem::Float(64),
                        lanes: &f
                    },
                    PArg {
                        elem: Elem::Float(64),
                        lanes: &[(0.0001f64).to_bits()]
                    },
                    PArg {
                        elem: Elem::Int(64),
                        lanes: &[0]
                    },
                ]
            ),
            "a=-42 b=    7 c=3   | ff 0001.500 1.500000e+00 0.0001 str %"
        );
    }

    #[test]
    fn vector_specifiers() {
        let v: Vec<u64> = [1.0f32, 2.5, -3.0, 4.0]
            .iter()
            .map(|x| x.to_bits() as u64)
            .collect();
        assert_eq!(
            run(
                "%v4f|%v2hld",
                &[
                    PArg {
                        elem: Elem::Float(32),
                        lanes: &v
                    },
                    PArg {
                        elem: Elem::Int(32),
                        lanes: &[5, 0xffff_fffe]
                    },
                ]
            ),
            "1.000000,2.500000,-3.000000,4.000000|5,-2"
        );
        assert_eq!(
            run(
                "%a",
                &[PArg {
                    elem: Elem::Float(64),
                    lanes: &[1.0f64.to_bits()]
                }]
            ),
            "0x1p+0"
        );
    }
}
