//! The run-to-barrier interpreter loop, alone in its file: [`run_turns`] and the macros it
//! is written with.
//!
//! Performance: `run_turns` is the interpreter's one hot loop. It is one long function, alone in
//! its file, on purpose: splitting it was measured slower. Its register reads are unchecked.
//! They rely on `Code::verify` (`interpreter/src/ir/verify.rs`), run once when a program loads,
//! and on `debug_assert!`s in debug builds.

use super::access::ItemMemory;
use super::cold::run_cold;
use super::group::{next_runnable, Pass, TurnEnd};
use super::launch::LaunchRun;
use super::state::{Frame, Item, ItemState, RunningGroup};
use crate::alu::{self, mask, sext};
use crate::ir::{fences_of_flags, Op, NO_SLOT};
use crate::observer::{BarrierArrival, Fences, InstId, Observer};
use crate::ExecError;

/// The interpreter, running the turns of one pass (see `group::run_phase`). An item that
/// reaches a barrier or its end hands over to the next item inside the dispatch loop: a turn
/// costs the stores and loads of the two items' state, not a way out of the loop and back in.
/// Executed instructions are added to `executed` (when `COUNTED`), which the caller flushes
/// to the launch-wide counter (shared by all workers) once per pass, not per turn.
///
/// A turn also ends when it has used up `budget`: instructions when `COUNTED`, else jumps
/// (one add and compare per control transfer, the cheapest count there is). So a work-item
/// that loops without reaching a barrier yields to the other items, and its group to the
/// other groups (`group::run_group`): fair scheduling of spin-waits.
///
/// The one long function of the executor, on purpose: a single `match` over the ops with
/// the loop state (op pointer, frame pointer, count) in locals the macros below share, so
/// the optimiser keeps that state in registers across the whole loop. Splitting the hot arms
/// into functions would pass that state through memory at every op; the rare ops already
/// run out of line (`cold::run_cold`).
pub(super) fn run_turns<O: Observer, const COUNTED: bool>(
    lx: &LaunchRun<O>,
    gx: &mut RunningGroup<O>,
    pool: &mut [Item],
    order: &[usize],
    executed: &mut u64,
    budget: u64,
) -> Result<Pass, ExecError> {
    let code = lx.code;
    let ops = &code.ops[..];
    // The op being run is a pointer, not an index into `ops`: one register, no address
    // arithmetic per dispatch. Everything that needs the index (reports, saved state) takes
    // it from the pointer.
    let ops_ptr = ops.as_ptr();
    // SAFETY (for each use): `ip` always points into `ops`.
    let pc_of = |ip: *const Op| unsafe { ip.offset_from(ops_ptr) } as usize;
    let mut pass = Pass {
        done: 0,
        yields: 0,
        arrived: 0,
    };
    // Position in `order` of the next item to consider.
    let mut k = 0;
    // The running item's state, borrowed from `pool` and replaced whole at each hand-over
    // (`enter!`); declared here so the macros below can name them.
    let mut regs_vec: &mut Vec<u64>;
    let mut frames: &mut Vec<Frame>;
    let mut async_seen: &mut Vec<u32>;
    let mut st_pc: &mut u32;
    let mut st_base: &mut u32;
    let mut st_func: &mut u32;
    let mut st_done: &mut bool;
    let mut st_waiting: &mut bool;
    let mut mx: ItemMemory<'_, '_, '_, '_, O>;
    // The register file as a raw pointer and length, from which every register access is
    // derived (`rb` is the current frame's first register): the dispatch loop keeps one
    // pointer live instead of a slice and a base. Only a call that needs a larger frame
    // resizes the vector, and takes both anew.
    let mut rp: *mut u64;
    let mut rlen: usize;
    let mut rb: *mut u64;
    let mut base: usize;
    let mut func: u32;
    let mut ip: *const Op;
    // Executed ops are counted per straight-line run (`seg` is where the current one
    // started), not per op: `count + (ip - seg)` is the count at any point. Not `COUNTED`,
    // `count` is the turn's jumps.
    let mut count: u64;
    let mut seg: *const Op;
    // Takes up item `$i` where it stopped, with the group context `$gx`.
    macro_rules! enter {
        ($i:expr, $gx:expr) => {{
            let Item { regs, mem, st } = &mut pool[$i];
            let ItemState {
                wi,
                frames: f,
                pc,
                base: b,
                func: fu,
                async_seen: a,
                done: d,
                waiting: w,
            } = st;
            mx = ItemMemory {
                lx,
                gx: $gx,
                mem,
                wi,
            };
            (regs_vec, frames, async_seen) = (regs, f, a);
            (st_pc, st_base, st_func, st_done, st_waiting) = (pc, b, fu, d, w);
            rp = regs_vec.as_mut_ptr();
            rlen = regs_vec.len();
            base = *st_base as usize;
            func = *st_func;
            let pc = *st_pc as usize;
            // Registers of the ops `Code::verify` covers are read without bounds checks:
            // verified code keeps `ip` inside the current function's ops and those ops'
            // operands inside its frame, so it is enough that the register file holds the
            // frame (checked here, kept by `Call`, which grows it, and `Ret`, which returns
            // to a frame that fitted before).
            match code.funcs.get(func as usize) {
                Some(f)
                    if (f.entry as usize..f.end as usize).contains(&pc)
                        && rlen >= base + f.frame as usize => {}
                _ => {
                    return Err(ExecError::Aborted(format!(
                        "work-item resumed outside its function (pc {pc})"
                    )))
                }
            }
            // SAFETY: `pc` lies inside its function's ops, inside `ops`; `base` inside the
            // register file (both checked just above).
            ip = unsafe { ops_ptr.add(pc) };
            rb = unsafe { rp.add(base) };
            seg = ip;
            count = 0;
        }};
    }
    // Ends the running item's turn: saves where it stopped.
    macro_rules! save {
        () => {{
            *st_pc = pc_of(ip) as u32;
            *st_base = base as u32;
            *st_func = func;
            if COUNTED {
                // SAFETY: both point into `ops`.
                *executed += count + unsafe { ip.offset_from(seg) } as u64;
            }
        }};
    }
    // Hands over to the next runnable item, or ends the pass when there is none.
    macro_rules! next_item {
        () => {{
            let gx = mx.gx;
            match next_runnable(pool, order, &mut k, &mut pass.done) {
                Some(i) => enter!(i, gx),
                None => return Ok(pass),
            }
        }};
    }
    let Some(first) = next_runnable(pool, order, &mut k, &mut pass.done) else {
        return Ok(pass);
    };
    enter!(first, gx);
    // The whole register file as a slice, for the ops that move several lanes or hand the
    // registers to a helper.
    macro_rules! regs {
        () => {
            // SAFETY: `rp`/`rlen` are `regs_vec`'s buffer, which nothing else borrows while
            // the item runs; each such slice is a temporary, gone before the next access.
            unsafe { std::slice::from_raw_parts_mut(rp, rlen) }
        };
    }
    // The index of the op being run (`ip` has moved past it).
    macro_rules! here {
        () => {
            pc_of(ip) - 1
        };
    }
    // The op after the one being run, for the fused pairs below.
    macro_rules! peek {
        () => {{
            // Verified code never ends a function with an op that falls through.
            debug_assert!(
                pc_of(ip) < ops.len(),
                "op {} peeks past the program",
                here!()
            );
            // SAFETY: see above; `ip` is past an op that falls through, inside its function.
            unsafe { &*ip }
        }};
    }
    macro_rules! r {
        ($x:expr) => {
            regs!()[base + $x as usize]
        };
    }
    // The turn budget is checked on control transfers only (every loop passes one).
    macro_rules! jump {
        ($t:expr) => {{
            let t = $t;
            if COUNTED {
                // SAFETY: both point into `ops` (`seg` is where this straight run began).
                count += unsafe { ip.offset_from(seg) } as u64;
            } else {
                count += 1;
            }
            debug_assert!(t < ops.len());
            // SAFETY: branch targets of verified code lie inside the function.
            ip = unsafe { ops_ptr.add(t) };
            seg = ip;
            if count >= budget {
                break TurnEnd::Yield;
            }
        }};
    }
    // Accesses with the width as a constant, so the width dispatch in the memory path folds
    // away for the common 4- and 8-byte accesses.
    macro_rules! load {
        ($p:expr, $w:expr, $pc:expr) => {
            match $w {
                4 => mx.load($p, 4, $pc),
                8 => mx.load($p, 8, $pc),
                w => mx.load($p, w as usize, $pc),
            }
        };
    }
    macro_rules! store {
        ($p:expr, $w:expr, $v:expr, $pc:expr) => {
            match $w {
                4 => mx.store($p, 4, $v, $pc),
                8 => mx.store($p, 8, $v, $pc),
                w => mx.store($p, w as usize, $v, $pc),
            }
        };
    }
    macro_rules! u {
        ($x:expr) => {
            *{
                let x = $x as usize;
                // What `Code::verify` and the frame checks above guarantee, checked in tests.
                debug_assert!(base + x < rlen, "register {x} outside the register file");
                // SAFETY: see above; `$x` is an operand slot of a verified op of `func`.
                unsafe { &mut *rb.add(x) }
            }
        };
    }
    // A comparison followed by the branch on it (every loop test): the branch runs in the
    // same turn of the loop, saving a dispatch. The branch op stays in place (it may be a
    // branch target itself) and is counted as executed.
    macro_rules! test {
        ($d:expr, $v:expr) => {{
            let v: u64 = $v;
            u!($d) = v;
            if let Some(&Op::BrIf { c, t, f }) = Some(peek!()) {
                if c == $d {
                    ip = unsafe { ip.add(1) };
                    if v & 1 != 0 {
                        jump!(t as usize);
                    } else {
                        jump!(f as usize);
                    }
                }
            }
        }};
    }
    // `d = p + sext(idx) * scale + off`, then the access through `d` if that comes next
    // (the common case): it runs in this turn of the loop, saving one dispatch. The access
    // op stays in place (it may be a branch target) and is skipped here.
    macro_rules! gep1 {
        ($w:expr, $d:expr, $p:expr, $idx:expr, $scale:expr, $off:expr) => {{
            let d = $d;
            let i = sext(u!($idx), $w);
            let a =
                u!($p).wrapping_add(i.wrapping_mul($scale as i64).wrapping_add($off as i64) as u64);
            u!(d) = a;
            match Some(peek!()) {
                Some(&Op::Load { w, d: ld, p: lp }) if lp == d => {
                    ip = unsafe { ip.add(1) };
                    u!(ld) = load!(a, w, here!());
                }
                Some(&Op::Store { w, p: sp, v }) if sp == d => {
                    ip = unsafe { ip.add(1) };
                    let vv = u!(v);
                    store!(a, w, vv, here!());
                }
                _ => {}
            }
        }};
    }
    loop {
        let end = loop {
            debug_assert!(pc_of(ip) < ops.len());
            // SAFETY: `ip` is inside the current function's ops (see above): those lie in `ops`.
            let opr = unsafe { &*ip };
            ip = unsafe { ip.add(1) };
            match *opr {
                Op::Mov { d, s } => {
                    u!(d) = u!(s);
                    // A phi's move on a loop's back edge or a branch's join is followed by the
                    // jump: take it in the same turn of the loop (the Br stays in place, counted).
                    if let Some(&Op::Br { t }) = Some(peek!()) {
                        ip = unsafe { ip.add(1) };
                        jump!(t as usize);
                    }
                }
                Op::Bin { op, w, d, a, b } => u!(d) = alu::bin(op, w, u!(a), u!(b)),
                Op::Add32 { d, a, b } => {
                    u!(d) = (u!(a) as u32).wrapping_add(u!(b) as u32) as u64;
                    // An index sum used as the next address's index (`p[y * w + x + 1]`): compute
                    // the address (and its access) in this turn of the loop; the Gep1 is counted.
                    if let Some(&Op::Gep1 {
                        w,
                        d: gd,
                        p,
                        idx,
                        scale,
                        off,
                    }) = Some(peek!())
                    {
                        if idx == d {
                            ip = unsafe { ip.add(1) };
                            gep1!(w, gd, p, idx, scale, off);
                        }
                    }
                }
                Op::Add64 { d, a, b } => u!(d) = u!(a).wrapping_add(u!(b)),
                Op::Sub32 { d, a, b } => u!(d) = (u!(a) as u32).wrapping_sub(u!(b) as u32) as u64,
                Op::Sub64 { d, a, b } => u!(d) = u!(a).wrapping_sub(u!(b)),
                Op::Mul32 { d, a, b } => u!(d) = (u!(a) as u32).wrapping_mul(u!(b) as u32) as u64,
                Op::Mul64 { d, a, b } => u!(d) = u!(a).wrapping_mul(u!(b)),
                Op::SLt32 { d, a, b } => test!(d, ((u!(a) as i32) < (u!(b) as i32)) as u64),
                Op::ULt32 { d, a, b } => test!(d, ((u!(a) as u32) < (u!(b) as u32)) as u64),
                Op::SLt64 { d, a, b } => test!(d, ((u!(a) as i64) < (u!(b) as i64)) as u64),
                Op::ULt64 { d, a, b } => test!(d, (u!(a) < u!(b)) as u64),
                Op::Eq32 { d, a, b } => test!(d, (u!(a) as u32 == u!(b) as u32) as u64),
                Op::FAdd32 { d, a, b } => {
                    u!(d) = (f32::from_bits(u!(a) as u32) + f32::from_bits(u!(b) as u32)).to_bits()
                        as u64
                }
                Op::FMul32 { d, a, b } => {
                    u!(d) = (f32::from_bits(u!(a) as u32) * f32::from_bits(u!(b) as u32)).to_bits()
                        as u64
                }
                Op::FSub32 { d, a, b } => {
                    u!(d) = (f32::from_bits(u!(a) as u32) - f32::from_bits(u!(b) as u32)).to_bits()
                        as u64
                }

                Op::Eq64 { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    test!(d, (x == y) as u64);
                }
                Op::Ne32 { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    test!(d, (x != y) as u64);
                }
                Op::Ne64 { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    test!(d, (x != y) as u64);
                }
                Op::Shr32 { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    u!(d) = x >> (y & 31);
                }
                Op::Shr64 { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    u!(d) = x >> (y & 63);
                }
                Op::Shl32 { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    u!(d) = (x << (y & 31)) & 0xffff_ffff;
                }
                Op::Shl64 { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    u!(d) = x << (y & 63);
                }
                Op::And { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    u!(d) = x & y;
                }
                Op::Or { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    u!(d) = x | y;
                }
                Op::Select {
                    cvec,
                    n,
                    d,
                    c,
                    a,
                    b,
                } => {
                    if n == 1 {
                        r!(d) = if r!(c) & 1 != 0 { r!(a) } else { r!(b) };
                        continue;
                    }
                    for i in 0..n {
                        let cc = if cvec { r!(c + i) } else { r!(c) };
                        r!(d + i) = if cc & 1 != 0 { r!(a + i) } else { r!(b + i) };
                    }
                }
                Op::IConv {
                    signed,
                    from,
                    to,
                    n,
                    d,
                    s,
                } => {
                    let m = mask(to);
                    if n == 1 {
                        let v = r!(s);
                        r!(d) = if signed {
                            sext(v, from) as u64 & m
                        } else {
                            v & mask(from) & m
                        };
                        continue;
                    }
                    for i in 0..n as u32 {
                        let v = r!(s + i);
                        r!(d + i) = if signed {
                            sext(v, from) as u64 & m
                        } else {
                            v & mask(from) & m
                        };
                    }
                }
                Op::Load { w, d, p } => {
                    let pv = u!(p);
                    u!(d) = load!(pv, w, here!());
                }
                Op::Store { w, p, v } => {
                    let (pv, vv) = (u!(p), u!(v));
                    store!(pv, w, vv, here!());
                }
                Op::Gep { d, p, off } => r!(d) = r!(p).wrapping_add(off as u64),
                Op::Gep1 {
                    w,
                    d,
                    p,
                    idx,
                    scale,
                    off,
                } => gep1!(w, d, p, idx, scale, off),
                Op::GepN { g, d, p } => {
                    let spec = &code.geps[g as usize];
                    let mut o = spec.off;
                    for t in &spec.terms {
                        o = o.wrapping_add(sext(r!(t.slot), t.w).wrapping_mul(t.scale));
                    }
                    r!(d) = r!(p).wrapping_add(o as u64);
                }
                Op::LoadBuiltin { b, comp, d } => {
                    if comp == u8::MAX {
                        // One dispatch on the builtin for all its lanes.
                        let v = lx.builtin3(mx.gx, mx.wi, b);
                        if b.lanes() == 3 {
                            u!(d) = v[0];
                            u!(d + 1) = v[1];
                            u!(d + 2) = v[2];
                        } else {
                            u!(d) = v[0];
                        }
                        // Lowering copies the component the kernel asked for (`get_global_id(1)`)
                        // out of the vector: do that move here (it stays in place, counted).
                        if let Some(&Op::Mov { d: md, s }) = Some(peek!()) {
                            if s >= d && s < d + b.lanes() {
                                ip = unsafe { ip.add(1) };
                                u!(md) = v[(s - d) as usize];
                            }
                        }
                    } else {
                        u!(d) = lx.builtin(mx.gx, mx.wi, b, comp as usize);
                    }
                }
                Op::Br { t } => jump!(t as usize),
                Op::BrIf { c, t, f } => {
                    if u!(c) & 1 != 0 {
                        jump!(t as usize);
                    } else {
                        jump!(f as usize);
                    }
                }
                Op::Switch { w, s, tab } => {
                    let v = r!(s) & mask(w);
                    let t = &code.switches[tab as usize];
                    jump!(t.cases.iter().find(|c| c.0 == v).map_or(t.default, |c| c.1) as usize);
                }
                Op::Fma {
                    fused,
                    w,
                    n,
                    d,
                    a,
                    b,
                    c,
                } => {
                    if n == 1 && w == 32 && !fused {
                        // The scalar mad of float kernels (matmul's inner loop), without the lane
                        // loop; the same operations as below.
                        let f = |v: u64| f32::from_bits(v as u32);
                        u!(d) = (f(u!(a)) * f(u!(b)) + f(u!(c))).to_bits() as u64;
                        continue;
                    }
                    for i in 0..n as u32 {
                        let (x, y, z) = (u!(a + i), u!(b + i), u!(c + i));
                        u!(d + i) = if w == 32 {
                            let (x, y, z) = (
                                f32::from_bits(x as u32),
                                f32::from_bits(y as u32),
                                f32::from_bits(z as u32),
                            );
                            (if fused { x.mul_add(y, z) } else { x * y + z }).to_bits() as u64
                        } else {
                            let (x, y, z) =
                                (f64::from_bits(x), f64::from_bits(y), f64::from_bits(z));
                            (if fused { x.mul_add(y, z) } else { x * y + z }).to_bits()
                        };
                    }
                }
                Op::Call { f, d, args } => {
                    if frames.len() >= 1024 {
                        break TurnEnd::Abort("call stack overflow (recursion?)".into());
                    }
                    let callee = &code.funcs[f as usize];
                    let nb = base + code.funcs[func as usize].frame as usize;
                    let need = nb + callee.frame as usize;
                    if rlen < need {
                        regs_vec.resize(need, 0);
                        rp = regs_vec.as_mut_ptr();
                        rlen = regs_vec.len();
                    }
                    let regs = regs!();
                    if !callee.consts.is_empty() {
                        let cb = nb + callee.const_base as usize;
                        regs[cb..cb + callee.consts.len()].copy_from_slice(&callee.consts);
                    }
                    let ca = &code.calls[args as usize];
                    for &(s, ds, n) in &ca.moves {
                        let s = base + s as usize;
                        if n == 1 {
                            regs[nb + ds as usize] = regs[s];
                        } else {
                            regs.copy_within(s..s + n as usize, nb + ds as usize);
                        }
                    }
                    frames.push(Frame {
                        pc: here!() as u32 + 1,
                        base: base as u32,
                        func,
                        ret_d: d,
                        ret_n: ca.ret_n,
                        mark: mx.mem.mark(),
                    });
                    func = f;
                    base = nb;
                    debug_assert!(base + callee.frame as usize <= rlen);
                    // SAFETY: `base + frame` of the callee fits in the register file (grown above).
                    rb = unsafe { rp.add(base) };
                    jump!(callee.entry as usize);
                }
                Op::Ret | Op::RetV { .. } => {
                    let Some(fr) = frames.pop() else {
                        // The item's end: the next item runs in this same loop.
                        save!();
                        *st_done = true;
                        pass.done += 1;
                        if COUNTED {
                            *executed += lx.entry.skipped;
                        }
                        if O::ENABLED {
                            lx.obs.item_end(&mut mx.gx.obs, mx.wi);
                        }
                        next_item!();
                        continue;
                    };
                    if let Op::RetV { s, n } = *opr {
                        let s = base + s as usize;
                        let n = (n.min(fr.ret_n)) as usize;
                        regs!().copy_within(s..s + n, fr.base as usize + fr.ret_d as usize);
                    }
                    mx.mem.release(fr.mark);
                    if COUNTED {
                        count += unsafe { ip.offset_from(seg) } as u64;
                    }
                    debug_assert!((fr.pc as usize) < ops.len(), "return past the program");
                    // SAFETY: `fr.pc` follows a `Call` of a verified function (not its last op).
                    ip = unsafe { ops_ptr.add(fr.pc as usize) };
                    seg = ip;
                    base = fr.base as usize;
                    debug_assert!(
                        base + code.funcs[fr.func as usize].frame as usize <= rlen,
                        "the caller's frame outgrew the register file"
                    );
                    // SAFETY: the caller's frame fitted when it made the call.
                    rb = unsafe { rp.add(base) };
                    func = fr.func;
                }
                // A work-group function waits as a barrier that fences nothing; the
                // release gives it its result (`collective::release`).
                Op::Barrier { .. } | Op::Group { .. } => {
                    let fences = match *opr {
                        Op::Barrier { fences, flags } if flags == NO_SLOT => fences,
                        Op::Barrier { flags, .. } => fences_of_flags(r!(flags)),
                        _ => Fences::default(),
                    };
                    let at = here!();
                    save!();
                    *st_waiting = true;
                    pass.arrived += 1;
                    if O::ENABLED {
                        lx.obs.barrier(
                            &mut mx.gx.obs,
                            &BarrierArrival {
                                item: mx.wi,
                                inst: InstId(code.inst_of[at]),
                                fences,
                            },
                        );
                    }
                    next_item!();
                }
                Op::Trap => break TurnEnd::Abort("unreachable code reached".into()),
                // In line so that without an observer it costs its dispatch alone.
                Op::CheckIndex { .. } | Op::Fence { .. } if !O::ENABLED => {}
                // An index inside its array (nearly all) costs a compare, not a call.
                Op::CheckIndex {
                    idx,
                    w,
                    strict,
                    len,
                    ..
                } if !crate::ir::index_past_array(r!(idx), w, len, strict) => {}
                // Everything else runs out of line (see `run_cold`).
                _ => {
                    if let Err(m) = run_cold(opr, regs!(), base, &mut mx, async_seen, here!()) {
                        break TurnEnd::Abort(m);
                    }
                }
            }
        };
        save!();
        match end {
            TurnEnd::Yield => {
                pass.yields += 1;
                if COUNTED {
                    if let Some(why) = lx.status.watchdog(executed) {
                        return Err(ExecError::Aborted(why));
                    }
                }
            }
            TurnEnd::Abort(m) => return Err(ExecError::Aborted(m)),
        }
        next_item!();
    }
}
