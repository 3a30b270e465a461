//! OpenCL.std instructions the lowering left as calls (`Op::ExtInst`): pure functions
//! (`clstd::eval`), vector loads and stores, printf, and image instructions.

use std::io::Write;

use super::access::ItemMemory;
use super::texels::Texels;
use crate::clstd::{self, Elem, LaneArgs, Produced, Rounding};
use crate::image::ImageOp;
use crate::ir::{ExtKind, ExtSpec};
use crate::observer::Observer;

/// Runs `Code::exts[e]` for the work-item of `mx`, with the frame at `base` of `regs`;
/// `pc` is the op's index. An `Err` aborts the work-item.
pub(super) fn ext_inst<O: Observer>(
    mx: &mut ItemMemory<'_, '_, '_, '_, O>,
    regs: &mut [u64],
    base: usize,
    e: u32,
    pc: usize,
) -> Result<(), String> {
    let spec = &mx.lx.code.exts[e as usize];
    let x = Inst {
        spec,
        regs,
        base,
        pc,
    };
    match &spec.kind {
        ExtKind::Pure { op, ptr } => pure(mx, x, *op, *ptr)?,
        ExtKind::VLoad {
            n,
            elem_bytes,
            half,
            aligned,
        } => vload(mx, x, (*n, *elem_bytes), *half, *aligned),
        ExtKind::VStore {
            n,
            elem_bytes,
            half,
            aligned,
            rounding,
        } => vstore(mx, x, (*n, *elem_bytes), *half, *aligned, *rounding),
        ExtKind::Printf => printf(mx, x),
        ExtKind::Image(op) => image(mx, x, *op),
        ExtKind::Nop => {}
    }
    Ok(())
}

/// The instruction being run: its spec, the registers with its frame at `base`, its index.
struct Inst<'s, 'r> {
    spec: &'s ExtSpec,
    regs: &'r mut [u64],
    base: usize,
    pc: usize,
}

impl Inst<'_, '_> {
    /// Operand `k`: its register lanes and element (no lanes when there is no such operand).
    #[inline]
    fn arg(&self, k: usize) -> (&[u64], Elem) {
        let base = self.base;
        match self.spec.args.get(k) {
            Some(a) => (
                &self.regs[base + a.slot as usize..base + (a.slot + a.n) as usize],
                a.elem,
            ),
            None => (&[], Elem::Int(32)),
        }
    }

    /// The first lane of operand `k` (0 when there is none).
    #[inline]
    fn first(&self, k: usize) -> u64 {
        self.arg(k).0.first().copied().unwrap_or(0)
    }

    /// Sets the result's first `out.len()` lanes.
    #[inline]
    fn set_result(&mut self, out: &[u64]) {
        let d = self.base + self.spec.d as usize;
        self.regs[d..d + out.len()].copy_from_slice(out);
    }
}

/// `ExtKind::Pure`: `clstd::eval` on up to 4 operands of up to 16 lanes; a second result
/// (`frexp`'s exponent, for one) goes to the pointer operand `ptr`.
fn pure<O: Observer>(
    mx: &mut ItemMemory<'_, '_, '_, '_, O>,
    mut x: Inst<'_, '_>,
    op: u32,
    ptr: Option<(u32, u8, Elem)>,
) -> Result<(), String> {
    let spec = x.spec;
    let mut lanes = [[0u64; 16]; 4];
    let mut la: [LaneArgs<'_>; 4] = [LaneArgs {
        elem: Elem::Int(32),
        lanes: &[],
    }; 4];
    let na = spec.args.len().min(4);
    for (k, l) in lanes.iter_mut().enumerate().take(na) {
        let (s, _) = x.arg(k);
        let m = s.len().min(16);
        l[..m].copy_from_slice(&s[..m]);
    }
    for k in 0..na {
        let a = &spec.args[k];
        la[k] = LaneArgs {
            elem: a.elem,
            lanes: &lanes[k][..(a.n as usize).min(16)],
        };
    }
    let n = (spec.n as usize).min(16);
    let mut out = [0u64; 16];
    let mut out2 = [0u64; 16];
    let r = clstd::eval(op, spec.elem, &la[..na], &mut out[..n], &mut out2[..n])?;
    x.set_result(&out[..n]);
    if let (Produced::ResultAndPointee, Some((ps, w, _))) = (r, ptr) {
        let p = x.regs[x.base + ps as usize];
        for (i, v) in out2[..n].iter().enumerate() {
            mx.gx.component = i as u8;
            mx.store(
                p.wrapping_add((i * w as usize) as u64),
                w as usize,
                *v,
                x.pc,
            );
        }
        mx.gx.component = 0;
    }
    Ok(())
}

/// `ExtKind::VLoad`: `n` elements of `elem_bytes` at `(offset, pointer)`, widened from
/// half when `half`.
fn vload<O: Observer>(
    mx: &mut ItemMemory<'_, '_, '_, '_, O>,
    x: Inst<'_, '_>,
    (n, elem_bytes): (u32, u8),
    half: bool,
    aligned: bool,
) {
    let off = x.first(0);
    let p = x.first(1);
    let eb = elem_bytes as u64;
    let nn = if aligned && n == 3 { 4 } else { n } as u64;
    let addr = p.wrapping_add(off.wrapping_mul(nn * eb));
    for i in 0..n as u64 {
        mx.gx.component = i as u8;
        let v = mx.load(addr.wrapping_add(i * eb), eb as usize, x.pc);
        let v = if half {
            let f = half::f16::from_bits(v as u16);
            match x.spec.elem {
                Elem::Float(64) => f.to_f64().to_bits(),
                _ => f.to_f32().to_bits() as u64,
            }
        } else {
            v
        };
        x.regs[x.base + x.spec.d as usize + i as usize] = v;
    }
    mx.gx.component = 0;
}

/// `ExtKind::VStore`: `(data, offset, pointer)`, narrowed to half (with `rounding`) when
/// `half`.
fn vstore<O: Observer>(
    mx: &mut ItemMemory<'_, '_, '_, '_, O>,
    x: Inst<'_, '_>,
    (n, elem_bytes): (u32, u8),
    half: bool,
    aligned: bool,
    rounding: Rounding,
) {
    let (data, de) = x.arg(0);
    let data: Vec<u64> = data.to_vec();
    let off = x.first(1);
    let p = x.first(2);
    let eb = elem_bytes as u64;
    let nn = if aligned && n == 3 { 4 } else { n } as u64;
    let addr = p.wrapping_add(off.wrapping_mul(nn * eb));
    for (i, v) in data.iter().enumerate().take(n as usize) {
        let v = if half {
            if rounding == Rounding::Rte {
                match de {
                    Elem::Float(64) => half::f16::from_f64(f64::from_bits(*v)).to_bits() as u64,
                    _ => half::f16::from_f32(f32::from_bits(*v as u32)).to_bits() as u64,
                }
            } else {
                clstd::convert(*v, de, true, Elem::Float(16), true, false, rounding)
            }
        } else {
            *v
        };
        mx.gx.component = i as u8;
        mx.store(addr.wrapping_add(i as u64 * eb), eb as usize, v, x.pc);
    }
    mx.gx.component = 0;
}

/// `ExtKind::Printf`: formats to the process's stdout; the result (when used) is 0.
fn printf<O: Observer>(mx: &mut ItemMemory<'_, '_, '_, '_, O>, x: Inst<'_, '_>) {
    let fmt_p = x.first(0);
    let fmt = mx.peek_str(fmt_p);
    let owned: Vec<(Vec<u64>, Elem)> = (1..x.spec.args.len())
        .map(|k| {
            let (l, e) = x.arg(k);
            (l.to_vec(), e)
        })
        .collect();
    let pargs: Vec<crate::printf::PArg<'_>> = owned
        .iter()
        .map(|(l, e)| crate::printf::PArg { elem: *e, lanes: l })
        .collect();
    let out = crate::printf::format(&fmt, &pargs, &mut |p| mx.peek_str(p));
    if mx.lx.quiet {
        return;
    }
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    let _ = lock.write_all(&out);
    let _ = lock.flush();
    if x.spec.n > 0 {
        x.regs[x.base + x.spec.d as usize] = 0;
    }
}

/// `ExtKind::Image`: `crate::image` on up to 3 operands, texels through [`Texels`].
fn image<O: Observer>(mx: &mut ItemMemory<'_, '_, '_, '_, O>, mut x: Inst<'_, '_>, op: ImageOp) {
    let mut ops = [crate::image::Operand {
        lanes: &[],
        elem: Elem::Int(32),
    }; 3];
    let na = x.spec.args.len().min(3);
    for (k, o) in ops.iter_mut().enumerate().take(na) {
        let (lanes, elem) = x.arg(k);
        *o = crate::image::Operand { lanes, elem };
    }
    let mut out = [0u64; 4];
    let n = (x.spec.n as usize).min(4);
    let m = &mut Texels { mx, pc: x.pc };
    crate::image::exec(m, op, &ops[..na], x.spec.elem, &mut out[..n]);
    x.set_result(&out[..n]);
}
