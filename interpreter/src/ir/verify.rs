//! [`Code::verify`]: what the executors' unchecked register reads and op fetches rely on,
//! checked once when a module is loaded.

use super::*;

impl Code {
    /// Checks what the executors rely on to read registers and fetch ops without bounds
    /// checks (`exec/dispatch.rs`, `run_turns`, its `u!` reads): every function's ops lie in
    /// `entry..end` inside `ops`, its last op never falls through, its branches stay inside
    /// it, calls name existing functions, and the register operands of every op (not only
    /// those read unchecked: see [`Code::op_fits`]) lie inside its frame, as do its constants
    /// and parameters. The executor keeps `base + frame` registers of the current function
    /// and only changes function through `Call`/`Ret`.
    pub(crate) fn verify(&self) -> Result<(), String> {
        let n = self.ops.len() as u64;
        for (fi, f) in self.funcs.iter().enumerate() {
            let (entry, end, frame) = (f.entry as u64, f.end as u64, f.frame as u64);
            if entry >= end || end > n {
                return Err(format!("function {fi} has ops {entry}..{end} of {n}"));
            }
            let fits = |s: u32, lanes: u64| s as u64 + lanes <= frame;
            let consts_fit = fits(f.const_base, f.consts.len() as u64);
            if !consts_fit || !f.params.iter().all(|&(s, k)| fits(s, k as u64)) {
                return Err(format!(
                    "function {fi} has constants or parameters outside its frame"
                ));
            }
            for pc in entry..end {
                let op = &self.ops[pc as usize];
                if !self.op_fits(op, (entry, end), frame) {
                    return Err(format!("op {pc} ({op:?}) leaves function {fi}"));
                }
            }
            let last = &self.ops[end as usize - 1];
            let falls_through = !matches!(
                last,
                Op::Br { .. }
                    | Op::BrIf { .. }
                    | Op::Switch { .. }
                    | Op::Ret
                    | Op::RetV { .. }
                    | Op::Trap
            );
            if falls_through {
                return Err(format!("function {fi} falls through its end ({last:?})"));
            }
        }
        Ok(())
    }

    /// Whether `op`, in a function with ops `entry..end` and a frame of `frame` registers,
    /// keeps its branches inside the function and its register operands (with all their
    /// lanes) inside the frame, and names side-table entries that exist. Exhaustive on
    /// purpose: a new op must say how it is checked.
    fn op_fits(&self, op: &Op, (entry, end): (u64, u64), frame: u64) -> bool {
        let inside = |t: u32| (entry..end).contains(&(t as u64));
        let fits = |s: u32, lanes: u64| s as u64 + lanes <= frame;
        let all = |slots: &[u32], lanes: u64| slots.iter().all(|&s| fits(s, lanes));
        match *op {
            Op::Mov { d, s } | Op::Mask { d, s, .. } => all(&[d, s], 1),
            Op::MovN { d, s, n } => all(&[d, s], n as u64),
            Op::Bin { d, a, b, .. }
            | Op::Add32 { d, a, b }
            | Op::Add64 { d, a, b }
            | Op::Sub32 { d, a, b }
            | Op::Sub64 { d, a, b }
            | Op::Mul32 { d, a, b }
            | Op::Mul64 { d, a, b }
            | Op::SLt32 { d, a, b }
            | Op::ULt32 { d, a, b }
            | Op::SLt64 { d, a, b }
            | Op::ULt64 { d, a, b }
            | Op::Eq32 { d, a, b }
            | Op::FAdd32 { d, a, b }
            | Op::FMul32 { d, a, b }
            | Op::FSub32 { d, a, b }
            | Op::Eq64 { d, a, b }
            | Op::Ne32 { d, a, b }
            | Op::Ne64 { d, a, b }
            | Op::Shr32 { d, a, b }
            | Op::Shr64 { d, a, b }
            | Op::Shl32 { d, a, b }
            | Op::Shl64 { d, a, b }
            | Op::And { d, a, b }
            | Op::Or { d, a, b }
            | Op::PtrDiff { d, a, b, .. } => all(&[d, a, b], 1),
            Op::BinV { n, d, a, b, .. } | Op::FMinMax { n, d, a, b, .. } => {
                all(&[d, a, b], n as u64)
            }
            Op::BinS { n, d, a, b, .. } => all(&[d, a], n as u64) && fits(b, 1),
            Op::Un { n, d, a, .. } | Op::FUn { n, d, a, .. } => all(&[d, a], n as u64),
            Op::Reduce { n, d, a, .. } => fits(d, 1) && fits(a, n as u64),
            Op::Dot { n, d, a, b, .. } => fits(d, 1) && all(&[a, b], n as u64),
            Op::Select {
                cvec,
                n,
                d,
                c,
                a,
                b,
            } => all(&[d, a, b], n as u64) && fits(c, if cvec { n as u64 } else { 1 }),
            Op::IConv { n, d, s, .. } => all(&[d, s], n as u64),
            Op::Conv { cv, n, d, s } => (cv as usize) < self.convs.len() && all(&[d, s], n as u64),
            Op::Bitcast { fnl, tn, d, s, .. } => fits(s, fnl as u64) && fits(d, tn as u64),
            Op::ExtractDyn {
                n,
                stride,
                d,
                v,
                idx,
                outside: _,
            } => all(&[d, idx], 1) && fits(v, n as u64 * stride as u64),
            Op::InsertDyn {
                n,
                stride,
                d,
                v,
                x,
                idx,
            } => all(&[x, idx], 1) && all(&[d, v], n as u64 * stride as u64),
            Op::Load { d, p, .. } => all(&[d, p], 1),
            Op::LoadN { n, d, p, .. } => fits(d, n as u64) && fits(p, 1),
            Op::Store { p, v, .. } => all(&[p, v], 1),
            Op::StoreN { n, p, v, .. } => fits(p, 1) && fits(v, n as u64),
            Op::LoadAgg { l, d: v, p } | Op::StoreAgg { l, p, v } => self
                .layouts
                .get(l as usize)
                .is_some_and(|leaves| fits(v, leaves.len() as u64) && fits(p, 1)),
            Op::Gep { d, p, .. } => all(&[d, p], 1),
            Op::Gep1 { d, p, idx, .. } => all(&[d, p, idx], 1),
            Op::GepN { g, d, p } => {
                all(&[d, p], 1)
                    && self
                        .geps
                        .get(g as usize)
                        .is_some_and(|g| g.terms.iter().all(|t| fits(t.slot, 1)))
            }
            Op::Alloca { d, .. } => fits(d, 1),
            Op::CheckIndex { idx, .. } => fits(idx, 1),
            Op::CopyMem { d, s, .. } => all(&[d, s], 1),
            Op::CopyMemDyn { d, s, size, .. } => all(&[d, s, size], 1),
            Op::LoadBuiltin { b, comp, d } => {
                fits(d, if comp == u8::MAX { b.lanes() as u64 } else { 1 })
            }
            Op::Fma { n, d, a, b, c, .. } => all(&[d, a, b, c], n as u64),
            Op::Br { t } => inside(t),
            Op::BrIf { c, t, f } => fits(c, 1) && inside(t) && inside(f),
            Op::Switch { s, tab, .. } => {
                fits(s, 1)
                    && self
                        .switches
                        .get(tab as usize)
                        .is_some_and(|t| inside(t.default) && t.cases.iter().all(|c| inside(c.1)))
            }
            Op::Call { f, d, args } => {
                let (Some(callee), Some(ca)) =
                    (self.funcs.get(f as usize), self.calls.get(args as usize))
                else {
                    return false;
                };
                // Arguments go from this frame into the callee's, the value comes back to `d`.
                fits(d, ca.ret_n as u64)
                    && ca.moves.iter().all(|&(s, ds, k)| {
                        fits(s, k as u64) && ds as u64 + k as u64 <= callee.frame as u64
                    })
            }
            Op::Ret | Op::Trap => true,
            Op::RetV { s, n } => fits(s, n as u64),
            Op::Barrier { flags, .. } => flags == NO_SLOT || fits(flags, 1),
            Op::Group {
                d, a, id, id_n, w, ..
            } => {
                all(&[d, a], 1)
                    && (1..=64).contains(&w)
                    && (id == NO_SLOT || ((1..=3).contains(&id_n) && fits(id, id_n as u64)))
            }
            Op::Atomic {
                d,
                p,
                v,
                c,
                scope,
                sem,
                unequal,
                ..
            } => all(&[d, p, v, c, scope, sem, unequal], 1),
            Op::Fence { scope, sem } => all(&[scope, sem], 1),
            Op::ExtInst { e } => self.exts.get(e as usize).is_some_and(|x| {
                let ptr_fits = match x.kind {
                    ExtKind::Pure {
                        ptr: Some((ps, _, _)),
                        ..
                    } => fits(ps, 1),
                    _ => true,
                };
                ptr_fits && fits(x.d, x.n as u64) && x.args.iter().all(|a| fits(a.slot, a.n as u64))
            }),
            Op::AsyncCopy { a } => self
                .asyncs
                .get(a as usize)
                .is_some_and(|x| all(&[x.d, x.dst, x.src, x.n, x.stride, x.event], 1)),
            Op::AsyncWait { n, list, .. } => all(&[n, list], 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One function of `frame` registers running `ops`.
    fn code(frame: u32, ops: Vec<Op>) -> Code {
        let end = ops.len() as u32;
        Code {
            inst_of: vec![0; ops.len()],
            ops,
            funcs: vec![Func {
                name: "f".into(),
                entry: 0,
                frame,
                const_base: 0,
                consts: vec![],
                params: vec![],
                end,
            }],
            ..Code::default()
        }
    }

    #[test]
    fn verify_checks_the_operands_of_every_op() {
        assert_eq!(
            code(3, vec![Op::Mov { d: 0, s: 2 }, Op::Ret]).verify(),
            Ok(())
        );
        assert!(code(3, vec![Op::Mov { d: 0, s: 3 }, Op::Ret])
            .verify()
            .is_err());
        // Ops off the hot path too: every lane of a vector operand, a select's condition.
        assert!(code(4, vec![Op::MovN { d: 0, s: 2, n: 3 }, Op::Ret])
            .verify()
            .is_err());
        let select = Op::Select {
            cvec: true,
            n: 4,
            d: 0,
            c: 5,
            a: 0,
            b: 0,
        };
        assert!(code(8, vec![select, Op::Ret]).verify().is_err());
        // Side tables must hold the entry an op names.
        assert!(code(2, vec![Op::ExtInst { e: 0 }, Op::Ret])
            .verify()
            .is_err());
        let barrier = Op::Barrier {
            fences: Fences::default(),
            flags: 2,
        };
        assert!(code(2, vec![barrier, Op::Ret]).verify().is_err());
        // An atomic's and a fence's scope and semantics slots.
        let atomic = |scope, sem, unequal| Op::Atomic {
            op: AtomicOp::CmpXchg,
            w: 32,
            d: 0,
            p: 1,
            v: 2,
            c: 3,
            scope,
            sem,
            unequal,
        };
        assert_eq!(code(6, vec![atomic(4, 5, 5), Op::Ret]).verify(), Ok(()));
        for (scope, sem, unequal) in [(6, 5, 5), (4, 6, 5), (4, 5, 6)] {
            let op = atomic(scope, sem, unequal);
            assert!(code(6, vec![op, Op::Ret]).verify().is_err(), "{op:?}");
        }
        let fence = |scope, sem| Op::Fence { scope, sem };
        assert_eq!(code(2, vec![fence(0, 1), Op::Ret]).verify(), Ok(()));
        assert!(code(2, vec![fence(2, 1), Op::Ret]).verify().is_err());
        assert!(code(2, vec![fence(0, 2), Op::Ret]).verify().is_err());
        // A work-group function's operand, result and broadcast local id.
        let group = |a, id, id_n| Op::Group {
            op: GroupOp::Broadcast,
            scan: GroupScan::Reduce,
            w: 32,
            id_n,
            id_w: 64,
            d: 0,
            a,
            id,
        };
        assert_eq!(code(4, vec![group(1, 1, 3), Op::Ret]).verify(), Ok(()));
        assert_eq!(
            code(2, vec![group(1, NO_SLOT, 0), Op::Ret]).verify(),
            Ok(())
        );
        for op in [group(2, NO_SLOT, 0), group(1, 1, 3), group(1, 0, 4)] {
            assert!(code(2, vec![op, Op::Ret]).verify().is_err(), "{op:?}");
        }
        // The last op may not fall through.
        assert!(code(2, vec![Op::Mov { d: 0, s: 1 }]).verify().is_err());
    }
}
