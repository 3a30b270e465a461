//! The lockstep driver: runs the group converged while its lanes agree, in rounds of one op
//! per lane after they diverge (under `Schedule::AUTO`, for a while, then the per-item
//! executor takes them), and back together when a barrier releases them at one op.
//!
//! Performance: a diverged group runs in rounds, each running lane one op per round. When lanes
//! stand at two or more ops with effects, the round takes their turns in the schedule's order.
//! Lanes next to each other in that order, at one op, take theirs as one operation: a stencil's
//! border column splits its group into rows, not into single lanes.

use std::sync::atomic::Ordering;

use super::super::collective;
use super::super::group::{Rng, FAIR_TURN_JUMPS};
use super::super::launch::LaunchRun;
use super::super::state::{Item, RunningGroup};
use super::{effectful, exec, Flow, Ls, LsStop, Pos, Sel, DONE, RUN, WAIT};
use crate::observer::{Observer, Release, WorkItem};
use crate::schedule::Order;

/// Checks the watchdog and whether another group aborted (at control transfers).
fn watchdog<O: Observer>(lx: &LaunchRun<'_, O>, executed: &mut u64) -> Option<LsStop> {
    if lx.status.abort.load(Ordering::Relaxed) {
        return Some(LsStop::Stopped);
    }
    // An instruction limit is exact; a time limit alone is checked in slices (the shared
    // counter is not touched at every control transfer).
    if !lx.status.watched() || (lx.status.limit.is_none() && *executed < 1 << 12) {
        return None;
    }
    lx.status.watchdog(executed).map(LsStop::Abort)
}

/// At a jump: the watchdog, then fair scheduling: a group whose lanes have jumped
/// [`FAIR_TURN_JUMPS`] times with none reaching a barrier or its end (a spin-wait, or a long
/// barrier-free loop) steps aside for other groups, when there are any.
fn at_jump<O: Observer>(ls: &mut Ls<'_, '_, '_, O>, executed: &mut u64) -> Option<LsStop> {
    if let Some(s) = watchdog(ls.lx, executed) {
        return Some(s);
    }
    ls.idle += 1;
    (ls.idle >= FAIR_TURN_JUMPS && ls.lx.policy.fair).then_some(LsStop::Yield)
}

/// The diverged group's lanes: each lane's op (`lpc`) and state (`RUN`, `WAIT`, `DONE`),
/// and the per-round regrouping buffers.
#[derive(Default)]
struct Lanes {
    lpc: Vec<usize>,
    state: Vec<u8>,
    /// Running lanes grouped by op, in the order their first lane comes in the schedule.
    groups: Vec<(usize, Vec<usize>)>,
    /// Lanes that take single turns this round.
    turn: Vec<usize>,
    /// A lane went back to an earlier op (a loop's edge) this round.
    looped: bool,
}

impl Lanes {
    /// Groups the running lanes by op, in schedule order; returns how many groups.
    fn regroup(&mut self, order: &[usize]) -> usize {
        let mut ng = 0;
        for &l in order {
            if self.state[l] != RUN {
                continue;
            }
            if let Some(g) = self.groups[..ng].iter_mut().find(|g| g.0 == self.lpc[l]) {
                g.1.push(l);
                continue;
            }
            if ng == self.groups.len() {
                self.groups.push((0, vec![]));
            }
            self.groups[ng].0 = self.lpc[l];
            self.groups[ng].1.clear();
            self.groups[ng].1.push(l);
            ng += 1;
        }
        ng
    }
}

/// Releases a barrier all lanes (or all not finished) wait at.
fn release<O: Observer>(
    ls: &mut Ls<'_, '_, '_, O>,
    rng: &mut Rng,
    why: Release,
    executed: &mut u64,
) -> Option<LsStop> {
    let lx = ls.lx;
    ls.idle = 0;
    if O::ENABLED {
        lx.obs.barrier_release(&mut ls.gx.obs, why);
    }
    if lx.policy.wi_order == Order::Random {
        rng.shuffle(ls.order);
    }
    watchdog(lx, executed)
}

/// Gives the lanes waiting at a work-group function its result before their release
/// (`collective::release`); `after(l)` is the op lane `l` waits at, if it waits.
fn group_results<O: Observer>(
    ls: &mut Ls<'_, '_, '_, O>,
    after: impl Fn(usize) -> Option<usize>,
) -> Option<LsStop> {
    let code = ls.lx.code;
    if !code.group_fns {
        return None;
    }
    let after: Vec<Option<usize>> = (0..ls.wis.len()).map(after).collect();
    let mut lanes = collective::Lanes {
        regs: &mut ls.regs_vec[..],
        base: ls.pos.base,
        after: &after,
    };
    collective::release(code, ls.gx.size, &mut lanes)
        .err()
        .map(LsStop::Abort)
}

/// Moves the lanes an op ran for to where its flow sends them; `Some` ends the turn.
fn apply<O: Observer>(
    ls: &mut Ls<'_, '_, '_, O>,
    st: &mut Lanes,
    (flow, here, lanes): (Flow, usize, &[usize]),
    executed: &mut u64,
) -> Option<LsStop> {
    match flow {
        Flow::Next => lanes.iter().for_each(|&l| st.lpc[l] = here + 1),
        Flow::Jump(t) => {
            lanes.iter().for_each(|&l| st.lpc[l] = t);
            st.looped |= t <= here;
            return at_jump(ls, executed);
        }
        Flow::Split { .. } | Flow::SwitchSplit { .. } => {
            follow(ls, flow, here, lanes, &mut st.lpc);
            st.looped |= lanes.iter().any(|&l| st.lpc[l] <= here);
        }
        Flow::Barrier => {
            ls.idle = 0;
            lanes.iter().for_each(|&l| {
                st.lpc[l] = here + 1;
                st.state[l] = WAIT;
            })
        }
        Flow::Exit => {
            ls.idle = 0;
            lanes.iter().for_each(|&l| st.state[l] = DONE)
        }
        Flow::Scatter => {
            *executed -= lanes.len() as u64;
            lanes.iter().for_each(|&l| st.lpc[l] = here);
            let pos = &mut *ls.pos;
            pos.pc = here;
            pos.lanes = st
                .lpc
                .iter()
                .zip(&st.state)
                .map(|(&p, &s)| (p, s))
                .collect();
            return Some(LsStop::Scatter);
        }
        Flow::Abort(m) => return Some(LsStop::Abort(m)),
    }
    None
}

/// Runs the group from `at` until every item has returned, or an op needs the per-item
/// executor. While all lanes share a program counter each op runs once for the whole group;
/// after a divergent branch the group runs in rounds, each lane one op per round (the
/// round-robin turns of quantum 1): lanes at the same op run it together, and when lanes at
/// different ops with effects share a round, they take their turns one by one in order.
/// `wis` gives each lane's identity; `order` is the schedule's work-item order
/// (reshuffled at barrier releases for random order).
#[allow(clippy::too_many_arguments)] // the group's whole state, passed flat
pub(in crate::exec) fn run<O: Observer>(
    lx: &LaunchRun<'_, O>,
    gx: &mut RunningGroup<O>,
    wis: &[WorkItem],
    items: &mut [Item],
    order: &mut [usize],
    rng: &mut Rng,
    regs_vec: &mut Vec<u64>,
    scratch: &mut Vec<u64>,
    at: &mut Pos,
    executed: &mut u64,
) -> LsStop {
    let n = wis.len();
    let mut pc = at.pc;
    let mut ls = Ls {
        lx,
        gx,
        wis,
        order,
        regs_vec,
        pos: at,
        items,
        scratch,
        idle: 0,
    };
    let mut st = Lanes::default();
    // A group that stepped aside diverged takes up its rounds where it left them.
    let mut diverged_at_start = !ls.pos.lanes.is_empty();
    if diverged_at_start {
        (st.lpc, st.state) = std::mem::take(&mut ls.pos.lanes).into_iter().unzip();
    }
    loop {
        // Every lane at `pc`.
        while !std::mem::take(&mut diverged_at_start) {
            let flow = exec(&mut ls, pc, Sel::All, true);
            *executed += n as u64;
            match flow {
                Flow::Next => pc += 1,
                Flow::Jump(t) => {
                    pc = t;
                    if let Some(s) = at_jump(&mut ls, executed) {
                        // Where the lanes stopped, for the watchdog's report.
                        ls.pos.pc = pc;
                        ls.pos.lanes.clear();
                        return s;
                    }
                }
                Flow::Barrier => {
                    if let Some(s) = group_results(&mut ls, |_| Some(pc)) {
                        return s;
                    }
                    pc += 1;
                    // A long group of a launch the calling thread runs alone steps aside
                    // here so the thread can call the other workers (`LaunchRun::help_due`).
                    if let Some(s) = release(&mut ls, rng, Release::AllArrived, executed)
                        .or_else(|| lx.help_due().then_some(LsStop::Yield))
                    {
                        ls.pos.pc = pc;
                        ls.pos.lanes.clear();
                        return s;
                    }
                }
                Flow::Exit => return LsStop::Done,
                Flow::Scatter => {
                    *executed -= n as u64;
                    ls.pos.pc = pc;
                    return LsStop::Scatter;
                }
                Flow::Abort(m) => return LsStop::Abort(m),
                Flow::Split { .. } | Flow::SwitchSplit { .. } => {
                    st.lpc.clear();
                    st.lpc.resize(n, pc);
                    st.state.clear();
                    st.state.resize(n, RUN);
                    let all: Vec<usize> = (0..n).collect();
                    follow(&ls, flow, pc, &all, &mut st.lpc);
                    break;
                }
            }
        }
        match diverged(&mut ls, &mut st, rng, executed) {
            Ok(at) => pc = at,
            Err(s) => {
                // Where each lane stopped, for the watchdog's report.
                ls.pos.lanes = st
                    .lpc
                    .iter()
                    .copied()
                    .zip(st.state.iter().copied())
                    .collect();
                return s;
            }
        }
    }
}

/// Under `Schedule::AUTO`, the regroupings in which lanes went back to an earlier op while
/// apart (a loop's edge taken by some lanes and not others) that a diverged group gets
/// before the per-item executor takes over: a loop whose trip count differs between lanes
/// keeps them apart, and the per-item executor runs each lane to its next barrier faster
/// (`divergent`). Rounds that only go forward (an `if`, an `if`/`else`, a few lanes' early
/// `return`: a stencil's border items, whose condition is a chain of compares) end when the
/// lanes meet or finish, and count only against [`FORWARD_ROUNDS`]; lanes that loop together
/// while the others wait or have finished take one round however long they loop. Counting every
/// round against 8 sent stencil's border groups per item: 4.5 ms checks off and 11.9 under
/// the default checks, against 3.7 and 9.7 now (one thread, best of 6-8 runs; `divergent`,
/// `reduce`, `matmul` and `priv_array` unchanged).
const AUTO_ROUNDS: u32 = 2;

/// Under `Schedule::AUTO`, the most regroupings of a diverged group in all (a long `if` and
/// `else` run side by side).
const FORWARD_ROUNDS: u32 = 64;

/// Runs the diverged group in rounds of one op per running lane until its lanes meet again
/// at one op (`Ok` with that op) or the turn ends.
fn diverged<O: Observer>(
    ls: &mut Ls<'_, '_, '_, O>,
    st: &mut Lanes,
    rng: &mut Rng,
    executed: &mut u64,
) -> Result<usize, LsStop> {
    let (lx, n) = (ls.lx, ls.wis.len());
    let (mut rounds, mut looping) = (0u32, 0u32);
    st.looped = false;
    loop {
        rounds += 1;
        looping += std::mem::take(&mut st.looped) as u32;
        if lx.policy.lockstep_scatters && (looping > AUTO_ROUNDS || rounds > FORWARD_ROUNDS) {
            // Still apart (a loop whose trip count differs between lanes): the per-item
            // executor runs each lane to its next barrier faster (`run` records where each
            // lane is).
            return Err(LsStop::Scatter);
        }
        let ng = st.regroup(ls.order);
        if ng == 0 {
            // Every lane waits at a barrier or has finished.
            let done = st.state.iter().filter(|s| **s == DONE).count();
            if done == n {
                return Err(LsStop::Done);
            }
            let why = if done > 0 {
                Release::SomeFinished
            } else {
                Release::AllArrived
            };
            let waits = |l: usize| (st.state[l] == WAIT).then(|| st.lpc[l].wrapping_sub(1));
            if let Some(s) = group_results(ls, waits) {
                return Err(s);
            }
            if let Some(s) = release(ls, rng, why, executed) {
                return Err(s);
            }
            for s in st.state.iter_mut() {
                if *s == WAIT {
                    *s = RUN;
                }
            }
            if done == 0 && st.lpc.iter().all(|p| *p == st.lpc[0]) {
                return Ok(st.lpc[0]);
            }
            continue;
        }
        if ng == 1 && st.groups[0].1.len() == n {
            return Ok(st.groups[0].0);
        }
        if ng == 1 {
            // The only lanes running: their rounds need no regrouping until they split,
            // wait or finish.
            let (mut here, lanes) = (st.groups[0].0, std::mem::take(&mut st.groups[0].1));
            let stop = loop {
                let flow = exec(ls, here, Sel::Some(&lanes), false);
                *executed += lanes.len() as u64;
                match flow {
                    Flow::Next => here += 1,
                    Flow::Jump(t) => {
                        here = t;
                        if let Some(s) = at_jump(ls, executed) {
                            for &l in &lanes {
                                st.lpc[l] = here;
                            }
                            break Some(s);
                        }
                    }
                    flow => break apply(ls, st, (flow, here, &lanes), executed),
                }
            };
            st.groups[0].1 = lanes;
            match stop {
                Some(s) => return Err(s),
                None => continue,
            }
        }
        let effects = st.groups[..ng]
            .iter()
            .filter(|g| effectful(lx.code.ops.get(g.0)))
            .count();
        if effects >= 2 {
            // The exact round-robin interleaving: one lane after another, in order. Lanes
            // next to each other in the order at the same op take their turns as one
            // (the same effects, in the same order): a border column's lanes of a 2-D
            // stencil group split the others into rows, not into single lanes.
            let mut turn = std::mem::take(&mut st.turn);
            turn.clear();
            let state = &st.state;
            turn.extend(ls.order.iter().copied().filter(|l| state[*l] == RUN));
            let mut k = 0;
            while k < turn.len() {
                // The lanes after `k` have not moved yet this round.
                let here = st.lpc[turn[k]];
                let end = (k + 1..turn.len())
                    .find(|&e| st.lpc[turn[e]] != here)
                    .unwrap_or(turn.len());
                if let Some(s) = step(ls, st, here, &turn[k..end], executed) {
                    st.turn = turn;
                    return Err(s);
                }
                k = end;
            }
            st.turn = turn;
            continue;
        }
        for k in 0..ng {
            // Taken out while the lanes move, so `st` can change; put back for reuse.
            let lanes = std::mem::take(&mut st.groups[k].1);
            let stop = step(ls, st, st.groups[k].0, &lanes, executed);
            st.groups[k].1 = lanes;
            if let Some(s) = stop {
                return Err(s);
            }
        }
    }
}

/// Runs the op at `here` for `lanes` and moves them on.
fn step<O: Observer>(
    ls: &mut Ls<'_, '_, '_, O>,
    st: &mut Lanes,
    here: usize,
    lanes: &[usize],
    executed: &mut u64,
) -> Option<LsStop> {
    let flow = exec(ls, here, Sel::Some(lanes), false);
    *executed += lanes.len() as u64;
    apply(ls, st, (flow, here, lanes), executed)
}

/// Sends each lane of a divergent branch to its target.
fn follow<O: Observer>(
    ls: &Ls<'_, '_, '_, O>,
    flow: Flow,
    here: usize,
    lanes: &[usize],
    lpc: &mut [usize],
) {
    let regs = &ls.regs_vec[..];
    match flow {
        Flow::Split { c, t, f } => {
            for &l in lanes {
                lpc[l] = if regs[c + l] & 1 != 0 { t } else { f };
            }
        }
        Flow::SwitchSplit { s, m, tab } => {
            let t = &ls.lx.code.switches[tab as usize];
            for &l in lanes {
                let v = regs[s + l] & m;
                lpc[l] = t.cases.iter().find(|c| c.0 == v).map_or(t.default, |c| c.1) as usize;
            }
        }
        _ => lanes.iter().for_each(|&l| lpc[l] = here + 1),
    }
}
