//! Group copies: `async_work_group_copy` / `async_work_group_strided_copy` and
//! `wait_group_events`, with what observers are told about them.

use super::access::ItemMemory;
use crate::alu::mask;
use crate::observer::{GroupCopy, GroupWait, InstId, Observer};

/// wait_group_events: reads the event list (private memory) and tells the observer.
pub(super) fn async_wait<O: Observer>(
    mx: &mut ItemMemory<'_, '_, '_, '_, O>,
    count: u64,
    list: u64,
    pc: usize,
) {
    if !O::ENABLED {
        return;
    }
    // More events than copy instructions can only repeat or be invalid; 64 tell the story.
    let events: Vec<u64> = (0..count.min(64))
        .map(|i| mx.load(list.wrapping_add(i * 8), 8, pc))
        .collect();
    let wait = GroupWait {
        item: mx.wi,
        inst: InstId(mx.lx.code.inst_of[pc]),
        events: &events,
    };
    mx.lx.obs.group_wait(&mut mx.gx.obs, &wait);
}

/// async_work_group_copy: the first work-item to reach the n-th execution does the copy, as
/// the group; later arrivals are compared with its arguments.
pub(super) fn async_copy<O: Observer>(
    mx: &mut ItemMemory<'_, '_, '_, '_, O>,
    seen: &mut [u32],
    regs: &mut [u64],
    base: usize,
    s: crate::ir::AsyncSpec,
    pc: usize,
) {
    let k = s.counter as usize;
    let r = |x: u32| regs[base + x as usize];
    let n = r(s.n) & mask(s.n_w);
    let stride = r(s.stride) & mask(s.stride_w);
    let (dst, src, given) = (r(s.dst), r(s.src), r(s.event));
    // Its own event (one per copy instruction, never 0), or the one it was given to join.
    let event = if given != 0 { given } else { k as u64 + 1 };
    regs[base + s.d as usize] = event;
    let Some(count) = seen.get_mut(k) else {
        return;
    };
    *count += 1;
    let first = mx.gx.async_counts[k] < *count;
    let args = [dst, src, n, stride, given];
    if first {
        mx.gx.async_counts[k] = *count;
        mx.gx.async_args[k] = args;
    }
    if O::ENABLED {
        let copy = GroupCopy {
            item: mx.wi,
            inst: InstId(mx.lx.code.inst_of[pc]),
            event,
            first,
            same_args: mx.gx.async_args[k] == args,
        };
        mx.lx.obs.group_copy(&mut mx.gx.obs, &copy);
    }
    if !first {
        return;
    }
    mx.gx.by_group = true;
    let e = s.elem as u64;
    for i in 0..n.min(1 << 32) {
        // The kernel chooses the stride: pointer arithmetic wraps, and a pointer past the
        // buffer is reported by the copy like any other out-of-bounds access.
        let (step, strided) = (i.wrapping_mul(e), i.wrapping_mul(stride).wrapping_mul(e));
        let (d, sv) = if s.to_local {
            (dst.wrapping_add(step), src.wrapping_add(strided))
        } else {
            (dst.wrapping_add(strided), src.wrapping_add(step))
        };
        if !mx.copy(d, sv, e, false, pc) {
            break;
        }
    }
    mx.gx.by_group = false;
}
