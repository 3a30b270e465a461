//! Work-group functions (OpenCL C 6.15.13, [`Op::Group`]) at a barrier's release.
//!
//! A work-group function is a barrier that fences nothing: each work-item arrives at it as
//! at a barrier (the observer hears a `BarrierArrival` without fences), and when the group
//! is released each work-item waiting at one gets its result from the operands of those
//! waiting at the same op. Both executors release through [`release`], each with its own
//! register layout ([`Released`]).

use super::state::Item;
use crate::alu::{self, mask, sext, to_f64};
use crate::ir::{BinOp, Code, GroupOp, GroupScan, Op};

/// The work-items a release frees, as the executor that runs them keeps their registers.
pub(super) trait Released {
    /// How many work-items, numbered by local linear id.
    fn items(&self) -> usize;
    /// The op that made work-item `i` wait, if it waits.
    fn waits_after(&self, i: usize) -> Option<usize>;
    /// Register `slot` of `i`'s current frame.
    fn get(&self, i: usize, slot: u32) -> u64;
    fn set(&mut self, i: usize, slot: u32, v: u64);
}

/// The per-item executor's work-items (`pool` is in local linear id order).
pub(super) struct Items<'a>(pub(super) &'a mut [Item]);

impl Released for Items<'_> {
    fn items(&self) -> usize {
        self.0.len()
    }
    fn waits_after(&self, i: usize) -> Option<usize> {
        let st = &self.0[i].st;
        if !st.waiting || st.done {
            return None;
        }
        // A waiting item's pc is the op after the one it waits at.
        (st.pc as usize).checked_sub(1)
    }
    fn get(&self, i: usize, slot: u32) -> u64 {
        let it = &self.0[i];
        let at = it.st.base as usize + slot as usize;
        it.regs.get(at).copied().unwrap_or(0)
    }
    fn set(&mut self, i: usize, slot: u32, v: u64) {
        let it = &mut self.0[i];
        let at = it.st.base as usize + slot as usize;
        if let Some(r) = it.regs.get_mut(at) {
            *r = v;
        }
    }
}

/// Lockstep's lanes: registers slot-major (`regs[slot * n + lane]`) in one frame at `base`;
/// `after[l]`: the op lane `l` waits after, if it waits.
pub(super) struct Lanes<'a> {
    pub(super) regs: &'a mut [u64],
    pub(super) base: usize,
    pub(super) after: &'a [Option<usize>],
}

impl Released for Lanes<'_> {
    fn items(&self) -> usize {
        self.after.len()
    }
    fn waits_after(&self, i: usize) -> Option<usize> {
        self.after[i]
    }
    fn get(&self, i: usize, slot: u32) -> u64 {
        let at = (self.base + slot as usize) * self.after.len() + i;
        self.regs.get(at).copied().unwrap_or(0)
    }
    fn set(&mut self, i: usize, slot: u32, v: u64) {
        let at = (self.base + slot as usize) * self.after.len() + i;
        if let Some(r) = self.regs.get_mut(at) {
            *r = v;
        }
    }
}

/// Gives every work-item that waits at a work-group function its result. The operands are
/// those of the work-items waiting at that same op: the whole group's, unless it diverged
/// (barrier divergence, which the observer reports: the result is then undefined, and is
/// that of the work-items that arrived). `size` is the group's local size. An `Err`
/// (a broadcast from outside the group) aborts the launch.
pub(super) fn release(code: &Code, size: [u64; 3], r: &mut impl Released) -> Result<(), String> {
    if !code.group_fns {
        return Ok(());
    }
    let n = r.items();
    let mut combined: Vec<usize> = Vec::new();
    let mut members: Vec<usize> = Vec::new();
    let mut vals: Vec<u64> = Vec::new();
    for i in 0..n {
        let Some(pc) = r.waits_after(i) else {
            continue;
        };
        let Some(&Op::Group {
            op,
            scan,
            w,
            id_n,
            id_w,
            d,
            a,
            id,
        }) = code.ops.get(pc)
        else {
            continue;
        };
        if combined.contains(&pc) {
            continue;
        }
        combined.push(pc);
        members.clear();
        members.extend((i..n).filter(|&j| r.waits_after(j) == Some(pc)));
        vals.clear();
        vals.extend(members.iter().map(|&j| r.get(j, a) & mask(w)));
        match op {
            GroupOp::All | GroupOp::Any => {
                let all = op == GroupOp::All;
                let v = if all {
                    vals.iter().all(|v| v & 1 != 0)
                } else {
                    vals.iter().any(|v| v & 1 != 0)
                };
                members.iter().for_each(|&j| r.set(j, d, v as u64));
            }
            GroupOp::Broadcast => {
                for &j in &members {
                    let mut at = [0u64; 3];
                    for (k, c) in at.iter_mut().enumerate().take(id_n as usize) {
                        *c = r.get(j, id + k as u32) & mask(id_w);
                    }
                    if (0..3).any(|k| at[k] >= size[k]) {
                        return Err(format!(
                            "work_group_broadcast from local id ({}, {}, {}), outside the \
                             work-group of size ({}, {}, {}) (OpenCL C 6.15.13)",
                            at[0], at[1], at[2], size[0], size[1], size[2]
                        ));
                    }
                    let from = (at[0] + size[0] * (at[1] + size[1] * at[2])) as usize;
                    // A work-item that did not arrive (divergence) gives no value.
                    let v = members.binary_search(&from).map_or(0, |k| vals[k]);
                    r.set(j, d, v);
                }
            }
            _ => {
                let mut acc: Option<u64> = None;
                let mut total = 0;
                for (k, &j) in members.iter().enumerate() {
                    let x = vals[k];
                    let before = acc.unwrap_or_else(|| identity(op, w));
                    let now = acc.map_or(x, |s| combine(op, w, s, x));
                    acc = Some(now);
                    total = now;
                    match scan {
                        GroupScan::Inclusive => r.set(j, d, now),
                        GroupScan::Exclusive => r.set(j, d, before),
                        GroupScan::Reduce => {}
                    }
                }
                if scan == GroupScan::Reduce {
                    members.iter().for_each(|&j| r.set(j, d, total));
                }
            }
        }
    }
    Ok(())
}

/// The identity of an arithmetic group operation on `w` bits, an exclusive scan's first
/// result (OpenCL C 6.15.13: 0 for add, the type's largest value for min, its smallest for
/// max; +INF and -INF for floating-point min and max).
fn identity(op: GroupOp, w: u8) -> u64 {
    let inf = match w {
        16 => 0x7c00,
        32 => 0x7f80_0000,
        _ => 0x7ff0_0000_0000_0000,
    };
    let sign = 1u64 << (w.clamp(1, 64) - 1);
    match op {
        GroupOp::SMin => mask(w) >> 1,
        GroupOp::UMin => mask(w),
        GroupOp::SMax => sign,
        GroupOp::FMin => inf,
        GroupOp::FMax => inf | sign,
        _ => 0,
    }
}

/// `a op b` for an arithmetic group operation on `w`-bit lanes. Floating-point min and max
/// are fmin and fmax: a NaN operand loses (OpenCL C 6.15.2).
fn combine(op: GroupOp, w: u8, a: u64, b: u64) -> u64 {
    let fpick = |max: bool| {
        let (x, y) = (to_f64(a, w), to_f64(b, w));
        if x.is_nan() || (!y.is_nan() && if max { y > x } else { y < x }) {
            b
        } else {
            a
        }
    };
    match op {
        GroupOp::IAdd => a.wrapping_add(b) & mask(w),
        GroupOp::FAdd => alu::bin(BinOp::FAdd, w, a, b),
        GroupOp::SMin if sext(b, w) < sext(a, w) => b,
        GroupOp::SMax if sext(b, w) > sext(a, w) => b,
        GroupOp::UMin => a.min(b),
        GroupOp::UMax => a.max(b),
        GroupOp::FMin => fpick(false),
        GroupOp::FMax => fpick(true),
        _ => a,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_and_combinations() {
        assert_eq!(identity(GroupOp::SMin, 32), 0x7fff_ffff);
        assert_eq!(identity(GroupOp::SMax, 32), 0x8000_0000);
        assert_eq!(identity(GroupOp::UMin, 64), u64::MAX);
        assert_eq!(identity(GroupOp::UMax, 16), 0);
        assert_eq!(identity(GroupOp::FMin, 32), f32::INFINITY.to_bits() as u64);
        assert_eq!(identity(GroupOp::FMax, 64), f64::NEG_INFINITY.to_bits());
        assert_eq!(identity(GroupOp::FMax, 16), 0xfc00);
        let m1 = mask(32);
        assert_eq!(combine(GroupOp::SMin, 32, 1, m1), m1);
        assert_eq!(combine(GroupOp::UMin, 32, 1, m1), 1);
        assert_eq!(combine(GroupOp::IAdd, 32, m1, 2), 1);
        let (nan, two) = (f32::NAN.to_bits() as u64, 2f32.to_bits() as u64);
        assert_eq!(combine(GroupOp::FMin, 32, nan, two), two);
        assert_eq!(combine(GroupOp::FMax, 32, two, nan), two);
    }
}
