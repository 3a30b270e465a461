//! Memory accesses of a work-item ([`ItemMemory`]): the unobserved fast paths, bounds checks and
//! faults, the reports observers get, atomics, and the byte-wise helpers under them.
//!
//! Performance: `ItemMemory::load` asks `Observer::read_is_quiet` inline, before it builds a
//! read for the observer (`ItemMemory::launch_read`); only the report is out of line. A loop
//! over a table the launch never writes then reports each word about once per group (the
//! `divergent` bench app: checks cost 1.75x checks-off before, 1.2x after).

use std::sync::atomic::Ordering;

use parking_lot::Mutex;

use super::launch::LaunchRun;
use super::state::{Priv, RunningGroup};
use crate::alu::{self, mask};
use crate::ir::{ptr, AtomicOp};
use crate::memory::AllocId;
use crate::observer::{
    fences_of_semantics, Access, AccessKind, AddressSpace, Fault, InstId, MemoryOrder, MemoryScope,
    Observer, SyncEvent, SyncKind, WorkItem,
};

/// The `n`-byte little-endian value at `b[o..]`. Fixed-width arms: a variable-length copy
/// compiles to a memcpy call per access.
#[inline(always)]
pub(super) fn rd(b: &[u8], o: usize, n: usize) -> u64 {
    match n {
        4 => u32::from_le_bytes(b[o..o + 4].try_into().unwrap_or_default()) as u64,
        8 => u64::from_le_bytes(b[o..o + 8].try_into().unwrap_or_default()),
        1 => b[o] as u64,
        2 => u16::from_le_bytes(b[o..o + 2].try_into().unwrap_or_default()) as u64,
        _ => {
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(&b[o..o + n]);
            u64::from_le_bytes(w)
        }
    }
}

/// Writes the low `n` bytes of `v` at `b[o..]` (as [`rd`]).
#[inline(always)]
pub(super) fn wr(b: &mut [u8], o: usize, n: usize, v: u64) {
    match n {
        4 => b[o..o + 4].copy_from_slice(&(v as u32).to_le_bytes()),
        8 => b[o..o + 8].copy_from_slice(&v.to_le_bytes()),
        1 => b[o] = v as u8,
        2 => b[o..o + 2].copy_from_slice(&(v as u16).to_le_bytes()),
        _ => b[o..o + n].copy_from_slice(&v.to_le_bytes()[..n]),
    }
}

/// Whether `n` bytes at offset `off` lie inside `len` bytes.
#[inline(always)]
pub(super) fn in_range(off: i64, n: usize, len: u64) -> bool {
    off >= 0 && (off as u64).checked_add(n as u64).is_some_and(|e| e <= len)
}

/// An atomic's `Scope` and memory semantics operands as its registers hold them, with a
/// compare-exchange's `Unequal` semantics (the order of one whose comparison fails; the
/// same as `sem` for the other ops). Read only when the observer wants them
/// ([`Observer::wants_sync`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct SyncOperands {
    pub(super) scope: u64,
    pub(super) sem: u64,
    pub(super) unequal: u64,
}

/// The scope a SPIR-V `Scope` value names; an unknown one (a run-time value no producer
/// writes) as `Device`, the scope of OpenCL C's atomics without one.
fn scope_of(scope: u64) -> MemoryScope {
    MemoryScope::of_spirv(scope as u32).unwrap_or(MemoryScope::Device)
}

/// Memory access context of one work-item.
pub(super) struct ItemMemory<'l, 'g, 'p, 'a, O: Observer> {
    pub(super) lx: &'l LaunchRun<'a, O>,
    pub(super) gx: &'g mut RunningGroup<O>,
    pub(super) mem: &'p mut Priv,
    pub(super) wi: &'p WorkItem,
}

impl<O: Observer> ItemMemory<'_, '_, '_, '_, O> {
    #[cold]
    fn fault(&mut self, f: Fault<'_>) {
        self.gx.faults += 1;
        if O::ENABLED {
            self.lx.obs.fault(&mut self.gx.obs, &f);
        } else if !self.lx.status.warned.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                "kernel memory fault (further faults in this launch are not logged): {f:?}"
            );
        }
    }

    /// An access chain's index `index` is past the end of its array of `len` elements.
    #[cold]
    pub(super) fn index_past_array(
        &mut self,
        index: i64,
        len: u32,
        space: Option<AddressSpace>,
        pc: usize,
    ) {
        let inst = InstId(self.lx.code.inst_of[pc]);
        self.fault(Fault::IndexPastArray {
            index,
            len,
            space,
            item: self.wi,
            inst,
        });
    }

    #[cold]
    pub(super) fn bad(&mut self, p: u64, size: usize, kind: AccessKind, pc: usize) {
        let (tag, idx, off) = ptr::dec(p);
        let inst = InstId(self.lx.code.inst_of[pc]);
        let wi = self.wi;
        let known = match tag {
            ptr::TAG_LAUNCH => self
                .lx
                .allocs
                .get(idx)
                .and_then(|a| a.as_ref())
                .map(|a| (a.space, a.buf.id(), a.view_size)),
            ptr::TAG_LOCAL => self.gx.locals.get(idx).map(|l| {
                (
                    AddressSpace::Local,
                    AllocId::local(idx as u32),
                    l.len() as u64,
                )
            }),
            ptr::TAG_PRIVATE => self
                .mem
                .allocs
                .get(idx)
                .map(|a| (AddressSpace::Private, AllocId(idx as u64), a.1 as u64)),
            _ => None,
        };
        let f = match known {
            Some((space, alloc, alloc_size)) => Fault::OutOfBounds {
                space,
                alloc,
                offset: off,
                size: size as u32,
                alloc_size,
                kind,
                item: wi,
                inst,
            },
            None => Fault::InvalidPointer {
                pointer: p,
                size: size as u32,
                kind,
                item: wi,
                inst,
            },
        };
        self.fault(f);
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)] // one flat call keeps the NoObserver path trivial
    fn report(
        &mut self,
        space: AddressSpace,
        alloc: AllocId,
        offset: u64,
        size: usize,
        kind: AccessKind,
        value: u64,
        prev: u64,
        pc: usize,
    ) {
        if O::ENABLED {
            let vb = value.to_le_bytes();
            let pb = prev.to_le_bytes();
            let (v, p): (&[u8], &[u8]) = if kind == AccessKind::Read {
                (&[], &[])
            } else {
                (&vb[..size], &pb[..size])
            };
            self.lx.obs.access(
                &mut self.gx.obs,
                &Access {
                    space,
                    alloc,
                    offset,
                    size: size as u32,
                    kind,
                    value: v,
                    previous: p,
                    item: self.wi,
                    inst: InstId(self.lx.code.inst_of[pc]),
                    by_group: self.gx.by_group,
                    copy: self.gx.copying,
                    undefined: if self.gx.copying && kind == AccessKind::Write {
                        self.gx.copy_undefined
                    } else {
                        0
                    },
                    component: self.gx.component,
                },
            );
        }
    }

    /// A load of private bytes `at..at + n` (offset `off` in allocation `idx`) when the
    /// observer follows definedness: a copy carries their undefined bytes to its store; any
    /// other read of undefined bytes is reported.
    #[inline]
    fn private_read(&mut self, idx: usize, off: i64, at: usize, n: usize, pc: usize) {
        let undefined = self.mem.undefined_mask(at, n);
        if self.gx.copying {
            self.gx.copy_undefined = undefined;
        } else if undefined != 0 {
            self.undefined_private_read(idx, off, n, undefined, pc);
        }
    }

    /// Reports a read of `n` private bytes at offset `off` of allocation `idx`, some
    /// `undefined`.
    #[cold]
    fn undefined_private_read(&mut self, idx: usize, off: i64, n: usize, undefined: u8, pc: usize) {
        self.lx.obs.access(
            &mut self.gx.obs,
            &Access {
                space: AddressSpace::Private,
                alloc: AllocId(idx as u64),
                offset: off as u64,
                size: n as u32,
                kind: AccessKind::Read,
                value: &[],
                previous: &[],
                item: self.wi,
                inst: InstId(self.lx.code.inst_of[pc]),
                by_group: self.gx.by_group,
                copy: false,
                undefined,
                component: 0,
            },
        );
    }

    /// A store to private bytes `at..at + n`: defined, but for a copy's undefined bytes.
    #[inline]
    fn private_written(&mut self, at: usize, n: usize) {
        if O::ENABLED && self.lx.definedness {
            let undefined = if self.gx.copying {
                self.gx.copy_undefined
            } else {
                0
            };
            self.mem.define(at, n, undefined);
        }
    }

    #[inline(always)]
    pub(super) fn load(&mut self, p: u64, n: usize, pc: usize) -> u64 {
        let (tag, idx, off) = ptr::dec(p);
        // Unobserved launch buffers: one range check through the allocation's view; local
        // memory straight after (the observed and faulting paths are below).
        if !O::ENABLED {
            if tag == ptr::TAG_LAUNCH {
                if let Some(v) = self.lx.views.get(idx).and_then(|v| v.load(off, n)) {
                    return v;
                }
            } else if tag == ptr::TAG_LOCAL {
                if let Some(l) = self.gx.locals.get(idx) {
                    if in_range(off, n, l.len() as u64) {
                        return rd(l, off as usize, n);
                    }
                }
            }
            return self.load_unobserved_rest(p, n, pc);
        }
        // Observed reads of launch buffers inline: a loop of reads the observer need not
        // hear of (`Observer::read_is_quiet`) is most of some kernels' checked time.
        if tag == ptr::TAG_LAUNCH {
            if let Some(v) = self.launch_read(idx, off, n, pc) {
                return v;
            }
        }
        self.load_rest(p, n, pc)
    }

    /// A read of `n` bytes at offset `off` of launch allocation `idx`, reported unless the
    /// observer says it need not be; `None` when it is not inside the allocation.
    #[inline(always)]
    fn launch_read(&mut self, idx: usize, off: i64, n: usize, pc: usize) -> Option<u64> {
        let Some(Some(a)) = self.lx.allocs.get(idx) else {
            return None;
        };
        if !in_range(off, n, a.view_size) {
            return None;
        }
        let abs = a.view_off + off as u64;
        let v = a.buf.load(abs as usize, n).unwrap_or(0);
        let (space, id) = (a.space, a.buf.id());
        // A copy's half is never quiet (it carries definedness).
        let plain = !(self.gx.copying || self.gx.by_group);
        let inst = InstId(self.lx.code.inst_of[pc]);
        let obs = &self.lx.obs;
        if !(O::ENABLED && plain && obs.read_is_quiet(&self.gx.obs, id, inst, abs, n as u32)) {
            self.report_read(space, id, abs, n, pc);
        }
        Some(v)
    }

    /// [`ItemMemory::report`] of a read, out of line: the inlined reads above only test whether it
    /// is needed.
    #[inline(never)]
    fn report_read(
        &mut self,
        space: AddressSpace,
        alloc: AllocId,
        offset: u64,
        n: usize,
        pc: usize,
    ) {
        self.report(space, alloc, offset, n, AccessKind::Read, 0, 0, pc);
    }

    /// The rest of an unobserved load (private memory, faults): out of the dispatch loop,
    /// and marked cold so the loop's registers are allocated for the fast paths.
    #[cold]
    #[inline(never)]
    fn load_unobserved_rest(&mut self, p: u64, n: usize, pc: usize) -> u64 {
        self.load_rest(p, n, pc)
    }

    fn load_rest(&mut self, p: u64, n: usize, pc: usize) -> u64 {
        let (tag, idx, off) = ptr::dec(p);
        match tag {
            ptr::TAG_PRIVATE => {
                if let Some(&(start, len)) = self.mem.allocs.get(idx) {
                    if in_range(off, n, len as u64) {
                        let at = start + off as usize;
                        if O::ENABLED && self.lx.definedness {
                            self.private_read(idx, off, at, n, pc);
                        }
                        return rd(&self.mem.bytes, at, n);
                    }
                }
            }
            ptr::TAG_LOCAL => {
                if let Some(l) = self.gx.locals.get(idx) {
                    if in_range(off, n, l.len() as u64) {
                        let v = rd(l, off as usize, n);
                        self.report(
                            AddressSpace::Local,
                            AllocId::local(idx as u32),
                            off as u64,
                            n,
                            AccessKind::Read,
                            0,
                            0,
                            pc,
                        );
                        return v;
                    }
                }
            }
            ptr::TAG_LAUNCH => {
                if let Some(v) = self.launch_read(idx, off, n, pc) {
                    return v;
                }
            }
            _ => {}
        }
        self.bad(p, n, AccessKind::Read, pc);
        0
    }

    #[inline(always)]
    pub(super) fn store(&mut self, p: u64, n: usize, v: u64, pc: usize) {
        let (tag, idx, off) = ptr::dec(p);
        if !O::ENABLED {
            if tag == ptr::TAG_LAUNCH {
                if let Some(()) = self.lx.views.get(idx).and_then(|x| x.store(off, n, v)) {
                    return;
                }
            } else if tag == ptr::TAG_LOCAL {
                if let Some(l) = self.gx.locals.get_mut(idx) {
                    if in_range(off, n, l.len() as u64) {
                        wr(l, off as usize, n, v);
                        return;
                    }
                }
            }
            return self.store_unobserved_rest(p, n, v, pc);
        }
        self.store_rest(p, n, v, pc)
    }

    /// See [`ItemMemory::load_unobserved_rest`].
    #[cold]
    #[inline(never)]
    fn store_unobserved_rest(&mut self, p: u64, n: usize, v: u64, pc: usize) {
        self.store_rest(p, n, v, pc)
    }

    fn store_rest(&mut self, p: u64, n: usize, v: u64, pc: usize) {
        let (tag, idx, off) = ptr::dec(p);
        match tag {
            ptr::TAG_PRIVATE => {
                if let Some(&(start, len)) = self.mem.allocs.get(idx) {
                    if in_range(off, n, len as u64) {
                        wr(&mut self.mem.bytes, start + off as usize, n, v);
                        self.private_written(start + off as usize, n);
                        return;
                    }
                }
            }
            ptr::TAG_LOCAL => {
                if let Some(l) = self.gx.locals.get_mut(idx) {
                    if in_range(off, n, l.len() as u64) {
                        let prev = if O::ENABLED && self.lx.previous {
                            rd(l, off as usize, n)
                        } else {
                            0
                        };
                        wr(l, off as usize, n, v);
                        self.report(
                            AddressSpace::Local,
                            AllocId::local(idx as u32),
                            off as u64,
                            n,
                            AccessKind::Write,
                            v,
                            prev,
                            pc,
                        );
                        return;
                    }
                }
            }
            ptr::TAG_LAUNCH => {
                if let Some(Some(a)) = self.lx.allocs.get(idx) {
                    if in_range(off, n, a.view_size) {
                        let abs = a.view_off + off as u64;
                        let (space, id) = (a.space, a.buf.id());
                        if !O::ENABLED {
                            a.buf.store(abs as usize, n, v);
                            return;
                        }
                        if !self.lx.previous {
                            a.buf.store(abs as usize, n, v);
                            self.report(space, id, abs, n, AccessKind::Write, v, 0, pc);
                            return;
                        }
                        // Store and report under one lock per address stripe: observers see
                        // the writes to a byte in the order they reached memory, so
                        // `previous` is what the last reported writer left (the same-value
                        // check of the race detector depends on it across work-groups).
                        let _order = store_order_lock(id, abs);
                        let prev = a.buf.load(abs as usize, n).unwrap_or(0);
                        a.buf.store(abs as usize, n, v);
                        self.report(space, id, abs, n, AccessKind::Write, v, prev, pc);
                        return;
                    }
                }
            }
            _ => {}
        }
        self.bad(p, n, AccessKind::Write, pc);
    }

    /// An atomic `op` on the `w`-bit integer at `p`, with operand `v` and comparator `c`:
    /// returns the old value. `sync`: its scope and semantics, when the observer wants them
    /// ([`LaunchRun::sync`]), reported right after the access for global and local memory.
    pub(super) fn atomic(
        &mut self,
        op: AtomicOp,
        w: u8,
        p: u64,
        (v, c): (u64, u64),
        sync: Option<SyncOperands>,
        pc: usize,
    ) -> u64 {
        let n = (w / 8) as usize;
        let (tag, idx, off) = ptr::dec(p);
        let m = mask(w);
        let (v, c) = (v & m, c & m);
        match tag {
            ptr::TAG_LAUNCH => {
                if let Some(Some(a)) = self.lx.allocs.get(idx) {
                    if in_range(off, n, a.view_size) {
                        let abs = (a.view_off + off as u64) as usize;
                        let f = |x: u64| alu::atomic_new(op, w, x, v, c);
                        let old = match (w, op) {
                            (32, AtomicOp::Load) => a
                                .buf
                                .atomic_u32(abs)
                                .map(|x| x.load(Ordering::SeqCst) as u64),
                            (64, AtomicOp::Load) => {
                                a.buf.atomic_u64(abs).map(|x| x.load(Ordering::SeqCst))
                            }
                            (32, _) => a.buf.atomic_u32(abs).map(|x| {
                                match x.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |o| {
                                    Some(f(o as u64) as u32)
                                }) {
                                    Ok(o) | Err(o) => o as u64,
                                }
                            }),
                            (_, _) => a.buf.atomic_u64(abs).map(|x| {
                                match x.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |o| {
                                    Some(f(o))
                                }) {
                                    Ok(o) | Err(o) => o,
                                }
                            }),
                        };
                        // Misaligned: not atomic on the host, but still well-defined bytes.
                        let old = old.unwrap_or_else(|| {
                            let o = a.buf.load(abs, n).unwrap_or(0);
                            if op != AtomicOp::Load {
                                a.buf.store(abs, n, f(o));
                            }
                            o
                        });
                        let (space, id) = (a.space, a.buf.id());
                        let kind = atomic_kind(op, old, c);
                        self.report(space, id, abs as u64, n, kind, f(old), old, pc);
                        if let (true, Some(s)) = (O::ENABLED, sync) {
                            self.atomic_sync((space, id, abs as u64, n), op, kind, s, pc);
                        }
                        return old;
                    }
                }
            }
            ptr::TAG_LOCAL => {
                if let Some(l) = self.gx.locals.get_mut(idx) {
                    if in_range(off, n, l.len() as u64) {
                        let old = rd(l, off as usize, n);
                        let new = alu::atomic_new(op, w, old, v, c);
                        wr(l, off as usize, n, new);
                        let (id, kind) = (AllocId::local(idx as u32), atomic_kind(op, old, c));
                        let at = (AddressSpace::Local, id, off as u64, n);
                        self.report(at.0, id, at.2, n, kind, new, old, pc);
                        if let (true, Some(s)) = (O::ENABLED, sync) {
                            self.atomic_sync(at, op, kind, s, pc);
                        }
                        return old;
                    }
                }
            }
            ptr::TAG_PRIVATE => {
                if let Some(&(start, len)) = self.mem.allocs.get(idx) {
                    if in_range(off, n, len as u64) {
                        let old = rd(&self.mem.bytes, start + off as usize, n);
                        let new = alu::atomic_new(op, w, old, v, c);
                        wr(&mut self.mem.bytes, start + off as usize, n, new);
                        self.private_written(start + off as usize, n);
                        return old;
                    }
                }
            }
            _ => {}
        }
        self.bad(p, n, AccessKind::Atomic, pc);
        0
    }

    /// [`Observer::synchronise`] of an atomic `op` whose access ([`ItemMemory::report`]) named `n`
    /// bytes at `offset` of `alloc` as `kind`: a compare-exchange that only read (its
    /// comparison failed) with its `Unequal` semantics' order.
    #[inline(never)]
    fn atomic_sync(
        &mut self,
        (space, alloc, offset, n): (AddressSpace, AllocId, u64, usize),
        op: AtomicOp,
        kind: AccessKind,
        s: SyncOperands,
        pc: usize,
    ) {
        let failed = op == AtomicOp::CmpXchg && kind == AccessKind::AtomicRead;
        let sem = if failed { s.unequal } else { s.sem } as u32;
        let kind = SyncKind::Atomic {
            space,
            alloc,
            offset,
            size: n as u32,
            reads: op != AtomicOp::Store,
            writes: kind == AccessKind::Atomic,
        };
        self.synchronise(kind, s.scope, sem, pc);
    }

    /// An `Op::Fence` of scope `scope` and semantics `sem` (register values), reported when
    /// the observer wants synchronisation ([`LaunchRun::sync`]).
    #[inline(never)]
    pub(super) fn fence(&mut self, scope: u64, sem: u64, pc: usize) {
        let fences = fences_of_semantics(sem as u32);
        self.synchronise(SyncKind::Fence { fences }, scope, sem as u32, pc);
    }

    fn synchronise(&mut self, kind: SyncKind, scope: u64, sem: u32, pc: usize) {
        self.lx.obs.synchronise(
            &mut self.gx.obs,
            &SyncEvent {
                item: self.wi,
                inst: InstId(self.lx.code.inst_of[pc]),
                kind,
                order: MemoryOrder::of_semantics(sem),
                scope: scope_of(scope),
                fences: fences_of_semantics(sem),
            },
        );
    }

    /// Reads a NUL-terminated string without reporting (printf formats, `%s`).
    pub(super) fn peek_str(&mut self, p: u64) -> Vec<u8> {
        let (tag, idx, off) = ptr::dec(p);
        let bytes: Vec<u8> = match tag {
            ptr::TAG_LAUNCH => match self.lx.allocs.get(idx) {
                Some(Some(a)) if off >= 0 && (off as u64) < a.view_size => {
                    let mut v = vec![0u8; (a.view_size - off as u64).min(1 << 16) as usize];
                    let _ = a.buf.read((a.view_off + off as u64) as usize, &mut v);
                    v
                }
                _ => vec![],
            },
            ptr::TAG_LOCAL => match self.gx.locals.get(idx) {
                Some(l) if off >= 0 && (off as usize) < l.len() => l[off as usize..].to_vec(),
                _ => vec![],
            },
            ptr::TAG_PRIVATE => match self.mem.allocs.get(idx) {
                Some(&(s, len)) if off >= 0 && (off as usize) < len => {
                    self.mem.bytes[s + off as usize..s + len].to_vec()
                }
                _ => vec![],
            },
            _ => vec![],
        };
        if bytes.is_empty() {
            return b"(null)".to_vec();
        }
        let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
        bytes[..end].to_vec()
    }

    /// Copies `size` bytes; returns false, having stopped, at the first faulting byte: a
    /// copy past the end of memory is one error, and its size (an application's or a
    /// fuzzer's) must not decide how long reporting it takes.
    /// `carry`: undefined bytes are carried, not used (`Op::CopyMem`).
    pub(super) fn copy(&mut self, d: u64, s: u64, size: u64, carry: bool, pc: usize) -> bool {
        if O::ENABLED {
            self.gx.copying = carry;
        }
        let done = self.copy_bytes(d, s, size, pc);
        self.gx.copying = false;
        done
    }

    fn copy_bytes(&mut self, d: u64, s: u64, size: u64, pc: usize) -> bool {
        let faults = self.gx.faults;
        let mut i = 0u64;
        // Widest chunk that divides the size and keeps both sides equally aligned.
        let step = [8usize, 4, 2, 1]
            .into_iter()
            .find(|&k| size.is_multiple_of(k as u64) && (d % k as u64) == (s % k as u64))
            .unwrap_or(1);
        while i < size {
            self.gx.copy_undefined = 0;
            // Each side's first chunk stands for it (its start is the instruction's alignment's).
            self.gx.component = (i / step as u64).min(u8::MAX as u64) as u8;
            let v = self.load(s.wrapping_add(i), step, pc);
            if self.gx.faults == faults {
                self.store(d.wrapping_add(i), step, v, pc);
            }
            if self.gx.faults != faults {
                self.gx.component = 0;
                return false;
            }
            i += step as u64;
        }
        self.gx.component = 0;
        true
    }
}

/// What an atomic did to memory: a load, or a compare-exchange that found another value
/// than `c`, only read it.
fn atomic_kind(op: AtomicOp, old: u64, c: u64) -> AccessKind {
    match op {
        AtomicOp::Load => AccessKind::AtomicRead,
        AtomicOp::CmpXchg if old != c => AccessKind::AtomicRead,
        _ => AccessKind::Atomic,
    }
}

/// One lock per cache line: packed, the one-byte locks of different stripes shared lines,
/// and worker threads storing to unrelated bytes bounced those lines between cores (11% of
/// checks-on vadd).
#[repr(align(64))]
struct Stripe(Mutex<()>);
const STRIPES: usize = 256;
static STORE_ORDER: [Stripe; STRIPES] = [const { Stripe(Mutex::new(())) }; STRIPES];

/// The stripe of [`STORE_ORDER`] that orders stores to (allocation, 64-byte line).
fn stripe(id: AllocId, offset: u64) -> usize {
    let line = (offset >> 6) ^ id.0.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (line as usize) % STRIPES
}

/// One of a fixed set of locks chosen by (allocation, 64-byte line): observed global stores
/// of different work-groups to the same bytes are serialised with their reports.
fn store_order_lock(id: AllocId, offset: u64) -> parking_lot::MutexGuard<'static, ()> {
    STORE_ORDER[stripe(id, offset)].0.lock()
}

/// The locks of [`store_order_lock`] for stores at each of `offsets` of `id`, each taken
/// once and in stripe order (so two threads taking several cannot wait for each other).
/// `span`: the bytes the offsets lie in; when it holds no more than a line per four
/// offsets (a run of lanes over consecutive words: sixteen per line), the stripes of its
/// lines are taken instead, one per line rather than one hash per lane (a few more locks at
/// most, never fewer). Rows of a 2-D group far apart keep one per offset.
pub(super) fn store_order_locks(
    id: AllocId,
    offsets: impl ExactSizeIterator<Item = u64>,
    (lo, hi): (u64, u64),
) -> Vec<parking_lot::MutexGuard<'static, ()>> {
    let mut wanted = [0u64; STRIPES / 64];
    let mut want = |o: u64| {
        let s = stripe(id, o);
        wanted[s / 64] |= 1 << (s % 64);
    };
    let lines = (hi.saturating_sub(1) >> 6).saturating_sub(lo >> 6) + 1;
    if lo < hi && lines.saturating_mul(4) <= offsets.len() as u64 {
        (lo >> 6..=(hi - 1) >> 6).for_each(|line| want(line << 6));
    } else {
        offsets.for_each(want);
    }
    let mut held = Vec::with_capacity(wanted.iter().map(|b| b.count_ones() as usize).sum());
    for (i, mut bits) in wanted.into_iter().enumerate() {
        while bits != 0 {
            let s = i * 64 + bits.trailing_zeros() as usize;
            held.push(STORE_ORDER[s].0.lock());
            bits &= bits - 1;
        }
    }
    held
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_scope_is_the_device() {
        assert_eq!(scope_of(2), MemoryScope::WorkGroup);
        assert_eq!(scope_of(4), MemoryScope::WorkItem);
        for unknown in [5, 77, u32::MAX as u64, u64::MAX] {
            assert_eq!(scope_of(unknown), MemoryScope::Device, "{unknown}");
        }
    }

    #[test]
    fn store_order_locks_hold_the_stripe_of_every_offset() {
        // Offsets in a short span (lines taken from the span) and far apart (one per offset).
        let id = AllocId(7);
        let runs: [Vec<u64>; 2] = [
            (0..64).map(|l| 1000 + 4 * l).collect(),
            (0..8).map(|l| l * 1_000_000 + 4).collect(),
        ];
        for offsets in runs {
            let span = (offsets[0], offsets[offsets.len() - 1] + 4);
            let held = store_order_locks(id, offsets.iter().copied(), span);
            for &o in &offsets {
                assert!(STORE_ORDER[stripe(id, o)].0.is_locked(), "offset {o}");
            }
            assert!(held.len() <= offsets.len());
        }
    }
}
