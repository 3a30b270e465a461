//! Element-wise comparison of two buffers: exact, or within N ULPs for float types.

fn ulp_key32(bits: u32) -> i64 {
    // Map float bits to a monotonic integer line (so -0.0 and +0.0 are adjacent).
    if bits & 0x8000_0000 != 0 {
        -((bits & 0x7fff_ffff) as i64)
    } else {
        bits as i64
    }
}

fn ulp_key64(bits: u64) -> i128 {
    if bits & 0x8000_0000_0000_0000 != 0 {
        -((bits & 0x7fff_ffff_ffff_ffff) as i128)
    } else {
        bits as i128
    }
}

fn render(ty: &str, e: &[u8]) -> String {
    let mut b = [0u8; 8];
    b[..e.len()].copy_from_slice(e);
    let u = u64::from_le_bytes(b);
    match ty {
        "float" => format!("{:e} (0x{:08x})", f32::from_bits(u as u32), u as u32),
        "double" => format!("{:e} (0x{:016x})", f64::from_bits(u), u),
        "char" => format!("{}", u as u8 as i8),
        "short" => format!("{}", u as u16 as i16),
        "int" => format!("{}", u as u32 as i32),
        "long" => format!("{}", u as i64),
        _ => format!("{u}"),
    }
}

/// Compares `a` (reference) with `b` (candidate). `ulp == 0` means bit-exact; NaNs of
/// any payload compare equal to each other in ULP mode.
pub fn buffers(ty: &str, a: &[u8], b: &[u8], ulp: u64) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("sizes differ: {} vs {} bytes", a.len(), b.len()));
    }
    let size = match ty {
        "char" | "uchar" => 1,
        "short" | "ushort" => 2,
        "int" | "uint" | "float" => 4,
        _ => 8,
    };
    let mut bad = Vec::new();
    let mut nbad = 0usize;
    for (i, (x, y)) in a.chunks(size).zip(b.chunks(size)).enumerate() {
        let equal = if x == y {
            true
        } else if ulp == 0 {
            false
        } else if ty == "float" {
            let (p, q) = (
                u32::from_le_bytes([x[0], x[1], x[2], x[3]]),
                u32::from_le_bytes([y[0], y[1], y[2], y[3]]),
            );
            let (fp, fq) = (f32::from_bits(p), f32::from_bits(q));
            (fp.is_nan() && fq.is_nan()) || (ulp_key32(p) - ulp_key32(q)).unsigned_abs() <= ulp
        } else if ty == "double" {
            let mut xb = [0u8; 8];
            let mut yb = [0u8; 8];
            xb.copy_from_slice(x);
            yb.copy_from_slice(y);
            let (p, q) = (u64::from_le_bytes(xb), u64::from_le_bytes(yb));
            let (fp, fq) = (f64::from_bits(p), f64::from_bits(q));
            (fp.is_nan() && fq.is_nan())
                || (ulp_key64(p) - ulp_key64(q)).unsigned_abs() <= ulp as u128
        } else {
            false
        };
        if !equal {
            nbad += 1;
            if bad.len() < 4 {
                bad.push(format!(
                    "[{i}] reference {} candidate {}",
                    render(ty, x),
                    render(ty, y)
                ));
            }
        }
    }
    if nbad == 0 {
        Ok(())
    } else {
        Err(format!(
            "{nbad} of {} {ty} elements differ{}: {}",
            a.len() / size,
            if ulp > 0 {
                format!(" by more than {ulp} ulp")
            } else {
                String::new()
            },
            bad.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_distance() {
        let a = 1.0f32.to_le_bytes();
        let b = f32::from_bits(1.0f32.to_bits() + 3).to_le_bytes();
        assert!(buffers("float", &a, &b, 4).is_ok());
        assert!(buffers("float", &a, &b, 2).is_err());
        assert!(buffers("float", &0.0f32.to_le_bytes(), &(-0.0f32).to_le_bytes(), 1).is_ok());
        assert!(buffers("int", &1i32.to_le_bytes(), &2i32.to_le_bytes(), 4).is_err());
    }
}
