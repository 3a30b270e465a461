//! Images and OpenCL.std extended instructions (run off the hot dispatch path).

use super::*;

/// Image instructions become `ExtKind::Image` (off the hot dispatch path; see `image.rs`).
pub(super) fn lower_image(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    use crate::image::ImageOp;
    let (op, n_ops) = match inst.class.opcode {
        S::SampledImage => (ImageOp::Combine, 2),
        S::ImageSampleExplicitLod => (ImageOp::Sample, 2),
        S::ImageRead => (ImageOp::Read, 2),
        S::ImageWrite => (ImageOp::Write, 3),
        S::ImageQuerySizeLod | S::ImageQuerySize => (ImageOp::QuerySize, 1),
        S::ImageQueryOrder => (ImageOp::QueryOrder, 1),
        _ => (ImageOp::QueryFormat, 1),
    };
    let (d, n, elem) = match inst.result_type {
        Some(rty) => {
            let (elem, _, n) = match fx.md.ty(rty)?.k {
                TypeKind::Opaque(_) => (Elem::Int(64), 64, 1),
                _ => fx.sc(rty)?,
            };
            (fx.dst(inst)?, n, elem)
        }
        None => (0, 0, Elem::Int(32)),
    };
    let mut args = vec![];
    for k in 0..n_ops {
        let id = id_at(inst, k)?;
        let slot = fx.val(id)?;
        let (elem, nn) = match fx.md.ty_of(id)?.k {
            TypeKind::Opaque(_) => (Elem::Int(64), 1),
            _ => {
                let (e, _, nn) = fx.sc(fx.md.type_id_of(id)?)?;
                (e, nn)
            }
        };
        args.push(ExtArg { slot, n: nn, elem });
    }
    let e = fx.md.code.exts.len() as u32;
    fx.md.code.exts.push(ExtSpec {
        kind: ExtKind::Image(op),
        d,
        n,
        elem,
        args,
    });
    fx.emit(Op::ExtInst { e });
    Ok(())
}

pub(super) fn lower_ext(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let set = id_at(inst, 0)?;
    if !fx.md.opencl_std.contains(&set) {
        // Debug info and other non-semantic sets.
        return Ok(());
    }
    let num = lit_at(inst, 1)? as u32;
    let rty = result_ty(inst)?;
    let (elem, _, n) = match fx.md.ty(rty)?.k {
        TypeKind::Void => (Elem::Int(32), 0, 0),
        _ => fx.sc(rty)?,
    };
    let d = if n > 0 { fx.dst(inst)? } else { 0 };
    let mut args = ext_args(fx, inst, num)?;
    let kind = ext_kind(fx, inst, num, n, &mut args)?;
    // vloadn, vstoren and the half ones read through a pointer to their element, aligned
    // to it; vloada_halfn and vstorea_halfn to the whole vector, a 3-vector's that of 4
    // (OpenCL C 6.15.11).
    if let ExtKind::VLoad {
        n,
        elem_bytes,
        aligned,
        ..
    }
    | ExtKind::VStore {
        n,
        elem_bytes,
        aligned,
        ..
    } = kind
    {
        let lanes = if aligned { n.next_power_of_two() } else { 1 };
        set_alignment(fx, elem_bytes as u64 * lanes as u64);
    }
    if let Some(op) = fast_float_op(&kind, elem, n, d, &args) {
        fx.emit(op);
        return Ok(());
    }
    let e = fx.md.code.exts.len() as u32;
    fx.md.code.exts.push(ExtSpec {
        kind,
        d,
        n,
        elem,
        args,
    });
    fx.emit(Op::ExtInst { e });
    Ok(())
}

/// The value operands of an OpenCL.std instruction.
fn ext_args(fx: &mut FunctionLowering, inst: &Instruction, num: u32) -> R<Vec<ExtArg>> {
    use spirv::CLOp as C;
    // rspirv does not know the OpenCL.std grammar and parses trailing literals (vloadn's n,
    // vstore_half_r's rounding mode) as ids: only the leading operands are values.
    let n_ids = match num {
        x if x == C::vloadn as u32
            || x == C::vload_half as u32
            || x == C::vload_halfn as u32
            || x == C::vloada_halfn as u32
            || x == C::prefetch as u32 =>
        {
            2
        }
        x if (C::vstoren as u32..=C::vstorea_halfn_r as u32).contains(&x) => 3,
        _ => usize::MAX,
    };
    let mut args = vec![];
    for k in 2..inst.operands.len().min(n_ids.saturating_add(2)) {
        let Ok(id) = id_at(inst, k) else {
            continue;
        };
        let slot = fx.val(id)?;
        let t = fx.md.type_id_of(id)?;
        let (e, nn) = match fx.md.ty(t)?.k {
            TypeKind::Ptr(..) => (Elem::Int(64), 1),
            _ => {
                let (e, _, nn) = fx.sc(t)?;
                (e, nn)
            }
        };
        args.push(ExtArg {
            slot,
            n: nn,
            elem: e,
        });
    }
    Ok(args)
}

/// What the executor does for OpenCL.std instruction `num`: memory builtins (vload/vstore and
/// the pointer-output math functions, whose pointer leaves `args`), printf, or a pure function.
fn ext_kind(
    fx: &mut FunctionLowering,
    inst: &Instruction,
    num: u32,
    n: u32,
    args: &mut Vec<ExtArg>,
) -> R<ExtKind> {
    use spirv::CLOp as C;
    let ptr_elem = |fx: &FunctionLowering, k: usize| -> R<(u8, Elem)> {
        let id = id_at(inst, k)?;
        match fx.md.ty_of(id)?.k {
            TypeKind::Ptr(_, p) => {
                let (e, w, _) = fx.sc(p)?;
                Ok(((w / 8).max(1), e))
            }
            _ => Err(malformed("pointer operand expected")),
        }
    };
    let lit_n = |k: usize| match inst.operands.get(k) {
        Some(Operand::IdRef(v)) => Some(*v),
        _ => lit_at(inst, k).ok().map(|v| v as u32),
    };
    Ok(match num {
        x if x == C::vloadn as u32 => ExtKind::VLoad {
            n,
            elem_bytes: ptr_elem(fx, 3)?.0,
            half: false,
            aligned: false,
        },
        x if x == C::vload_half as u32
            || x == C::vload_halfn as u32
            || x == C::vloada_halfn as u32 =>
        {
            ExtKind::VLoad {
                n,
                elem_bytes: 2,
                half: true,
                aligned: x == C::vloada_halfn as u32,
            }
        }
        x if x == C::vstoren as u32 => {
            let dn = args.first().map(|a| a.n).unwrap_or(1);
            ExtKind::VStore {
                n: dn,
                elem_bytes: ptr_elem(fx, 4)?.0,
                half: false,
                aligned: false,
                rounding: Rounding::Rte,
            }
        }
        x if (C::vstore_half as u32..=C::vstore_halfn_r as u32).contains(&x)
            || x == C::vstorea_halfn as u32
            || x == C::vstorea_halfn_r as u32 =>
        {
            let dn = args.first().map(|a| a.n).unwrap_or(1);
            let rounding = match lit_n(5) {
                Some(1) => Rounding::Rtz,
                Some(2) => Rounding::Rtp,
                Some(3) => Rounding::Rtn,
                _ => Rounding::Rte,
            };
            ExtKind::VStore {
                n: dn,
                elem_bytes: 2,
                half: true,
                aligned: x == C::vstorea_halfn as u32 || x == C::vstorea_halfn_r as u32,
                rounding,
            }
        }
        x if x == C::printf as u32 => ExtKind::Printf,
        x if x == C::prefetch as u32 => ExtKind::Nop,
        x if [
            C::fract,
            C::frexp,
            C::modf,
            C::remquo,
            C::sincos,
            C::lgamma_r,
        ]
        .iter()
        .any(|c| *c as u32 == x) =>
        {
            let last = inst.operands.len() - 1;
            let (w, e) = ptr_elem(fx, last)?;
            // The second result is stored through a pointer to its whole type (OpenCL C
            // 6.15.2), which must be aligned to it: a 3-vector's that of 4.
            if let TypeKind::Ptr(_, pointee) = fx.md.ty_of(id_at(inst, last)?)?.k {
                let align = fx.md.ty(pointee)?.align;
                set_alignment(fx, align);
            }
            let p = args
                .pop()
                .ok_or_else(|| malformed("missing pointer operand"))?;
            ExtKind::Pure {
                op: x,
                ptr: Some((p.slot, w, e)),
            }
        }
        x => ExtKind::Pure { op: x, ptr: None },
    })
}

/// Inline fast paths for the common float builtins (f32/f64, no scalar broadcast).
fn fast_float_op(kind: &ExtKind, elem: Elem, n: u32, d: u32, args: &[ExtArg]) -> Option<Op> {
    use spirv::CLOp as C;
    let (ExtKind::Pure { op, ptr: None }, Elem::Float(w @ (32 | 64))) = (kind, elem) else {
        return None;
    };
    let same = args.iter().all(|a| a.n == n && a.elem == elem);
    let n8 = n as u8;
    match (*op, args) {
        (x, [a, b, c]) if same && (x == C::fma as u32 || x == C::mad as u32) => Some(Op::Fma {
            fused: x == C::fma as u32,
            w,
            n: n8,
            d,
            a: a.slot,
            b: b.slot,
            c: c.slot,
        }),
        (x, [a, b]) if same && (x == C::fmin as u32 || x == C::fmax as u32) => Some(Op::FMinMax {
            max: x == C::fmax as u32,
            w,
            n: n8,
            d,
            a: a.slot,
            b: b.slot,
        }),
        (x, [a]) if same && (x == C::sqrt as u32 || x == C::fabs as u32) => Some(Op::FUn {
            sqrt: x == C::sqrt as u32,
            w,
            n: n8,
            d,
            a: a.slot,
        }),
        _ => None,
    }
}
