//! Work-group and work-item state: what a group, an item and a worker thread keep between
//! instructions, and the memory a group or an item owns.

use super::access::{in_range, rd, wr};
use crate::ir::ptr;
use crate::observer::{Observer, WorkItem};

/// A work-group as the executor runs it: the observer's state for it, its local memory, its
/// async copies and faults (the checkers keep theirs in `shadowcl_shadow::GroupState`).
pub(super) struct RunningGroup<O: Observer> {
    pub(super) obs: O::Group,
    pub(super) locals: Vec<LocalMem>,
    pub(super) async_counts: Vec<u32>,
    /// Arguments (dst, src, n, stride, event) of each copy's latest execution, from its first
    /// arrival.
    pub(super) async_args: Vec<[u64; 5]>,
    /// An async copy is being performed: accesses are the group's.
    pub(super) by_group: bool,
    pub(super) group: [u64; 3],
    /// Actual size of this group (smaller at the edge of a non-uniform NDRange).
    pub(super) size: [u64; 3],
    /// Memory faults so far: a copy stops at its first (one report, not one per byte).
    pub(super) faults: u64,
    /// A memory-to-memory copy is running ([`Access::copy`](crate::observer::Access)).
    pub(super) copying: bool,
    /// The undefined private bytes the copy's last load read (bit `i` = byte `i`).
    pub(super) copy_undefined: u8,
    /// Which part of its instruction's value the access being made is (a vector's element,
    /// a copy's chunk: [`Access::component`](crate::observer::Access::component)).
    pub(super) component: u8,
}

impl<O: Observer> RunningGroup<O> {
    /// How many work-items the group has.
    pub(super) fn items(&self) -> usize {
        (self.size[0] * self.size[1] * self.size[2]) as usize
    }
}

/// Private memory of a work-item: allocations in one arena.
#[derive(Default)]
pub(super) struct Priv {
    pub(super) bytes: Vec<u8>,
    pub(super) allocs: Vec<(usize, usize)>,
    /// Only when an observer follows definedness ([`Observer::wants_definedness`]): 1 for
    /// each byte of a watched allocation not written since it was allocated. Shorter than
    /// `bytes` when the last allocations are not watched (missing bytes are defined); stale
    /// past the live allocations, as `alloca` rewrites what it hands out.
    pub(super) undefined: Vec<u8>,
}

impl Priv {
    /// No allocations: a work-item's private memory at the kernel's start.
    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.allocs.clear();
        self.undefined.clear();
    }

    /// Whether `other` holds the same allocations (lockstep's lanes share one call stack,
    /// whose frames mark where each call's allocations start).
    pub(super) fn same_layout(&self, other: &Priv) -> bool {
        self.allocs == other.allocs && self.bytes.len() == other.bytes.len()
    }

    /// Where a call's allocations will start: [`Frame::mark`].
    pub(super) fn mark(&self) -> (usize, usize) {
        (self.allocs.len(), self.bytes.len())
    }

    /// Frees the allocations made since `mark` (a return).
    pub(super) fn release(&mut self, mark: (usize, usize)) {
        self.allocs.truncate(mark.0);
        self.bytes.truncate(mark.1);
    }

    /// The `n` bytes at `p` when it points into one of these allocations and, with
    /// `defined_only`, they were all written: the usual private load, inline. `None` sends
    /// the load to [`ItemMemory::load`](super::access::ItemMemory) (another space, a fault,
    /// or undefined bytes to report).
    #[inline(always)]
    pub(super) fn try_load(&self, p: u64, n: usize, defined_only: bool) -> Option<u64> {
        let at = self.at(p, n)?;
        if defined_only && self.undefined_mask(at, n) != 0 {
            return None;
        }
        Some(rd(&self.bytes, at, n))
    }

    /// Stores the low `n` bytes of `v` at `p` when it points into one of these allocations
    /// (defining them, with `definedness`); false, having stored nothing, when it does not
    /// (as [`Priv::try_load`]).
    #[inline(always)]
    pub(super) fn try_store(&mut self, p: u64, n: usize, v: u64, definedness: bool) -> bool {
        let Some(at) = self.at(p, n) else {
            return false;
        };
        wr(&mut self.bytes, at, n, v);
        if definedness {
            self.define(at, n, 0);
        }
        true
    }

    /// Where the `n` bytes private pointer `p` points at start in `bytes`, if they lie in
    /// one allocation.
    #[inline(always)]
    fn at(&self, p: u64, n: usize) -> Option<usize> {
        let (tag, idx, off) = ptr::dec(p);
        if tag != ptr::TAG_PRIVATE {
            return None;
        }
        let &(start, len) = self.allocs.get(idx)?;
        in_range(off, n, len as u64).then_some(start + off as usize)
    }

    /// Bit `i`: byte `i` of the `n` at `at` is undefined (`n` ≤ 8).
    #[inline]
    pub(super) fn undefined_mask(&self, at: usize, n: usize) -> u8 {
        let Some(u) = self.undefined.get(at..) else {
            return 0;
        };
        let n = n.min(8).min(u.len());
        // The flags (0 or 1 per byte) as one little-endian word; the multiply gathers byte
        // i's low bit into bit 56 + i (every other product lands below bit 56 or past 63).
        // Eight bytes read at once where there are eight (a copy of `n` bytes calls memcpy).
        let word = match u.get(..8).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
            Some(w) => u64::from_le_bytes(w) & low_bytes(n),
            None => {
                let mut word = [0u8; 8];
                word[..n].copy_from_slice(&u[..n]);
                u64::from_le_bytes(word)
            }
        };
        let flags = word & 0x0101_0101_0101_0101;
        (flags.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
    }

    /// The `n` bytes at `at` become defined, except those `undefined` (bit `i` = byte `i`)
    /// names: a copy of undefined bytes.
    #[inline]
    pub(super) fn define(&mut self, at: usize, n: usize, undefined: u8) {
        if let Some(u) = self.undefined.get_mut(at..) {
            let n = n.min(u.len());
            if undefined == 0 {
                // The usual store: every byte defined. Eight bytes at once where there are
                // eight and the store is no wider (a fill of `n` bytes calls memset).
                match u.get_mut(..8).filter(|_| n <= 8) {
                    Some(w) => {
                        let mut word = [0u8; 8];
                        word.copy_from_slice(w);
                        let kept = u64::from_le_bytes(word) & !low_bytes(n);
                        w.copy_from_slice(&kept.to_le_bytes());
                    }
                    None => u[..n].fill(0),
                }
                return;
            }
            let u = &mut u[..n];
            for (i, b) in u.iter_mut().enumerate() {
                *b = (undefined >> i) & 1;
            }
        }
    }
}

/// The low `n` bytes of a word (`n` ≤ 8) set.
#[inline(always)]
fn low_bytes(n: usize) -> u64 {
    match n {
        8.. => u64::MAX,
        n => (1u64 << (8 * n)) - 1,
    }
}

/// A call in progress: where the caller resumes and how the callee's result gets back.
pub(super) struct Frame {
    pub(super) pc: u32,
    pub(super) base: u32,
    pub(super) func: u32,
    pub(super) ret_d: u32,
    pub(super) ret_n: u32,
    /// Private memory (allocations, bytes) at the call: the callee's is freed at return.
    pub(super) mark: (usize, usize),
}

/// Where a work-item stands between turns of the per-item executor.
#[derive(Default)]
pub(super) struct ItemState {
    pub(super) wi: WorkItem,
    pub(super) frames: Vec<Frame>,
    pub(super) pc: u32,
    pub(super) base: u32,
    pub(super) func: u32,
    pub(super) async_seen: Vec<u32>,
    pub(super) done: bool,
    pub(super) waiting: bool,
}

/// A work-item of the per-item executor: registers of all its frames, private memory, state.
#[derive(Default)]
pub(super) struct Item {
    pub(super) regs: Vec<u64>,
    pub(super) mem: Priv,
    pub(super) st: ItemState,
}

/// What a worker thread keeps from one work-group to the next, so that a group allocates
/// nothing: work-item states, lockstep lanes, identities, local memory, schedule order.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) pool: Vec<Item>,
    pub(super) lanes: Vec<u64>,
    pub(super) wis: Vec<WorkItem>,
    pub(super) locals: Vec<LocalMem>,
    pub(super) order: Vec<usize>,
    /// Lockstep operations' per-lane scratch (offsets, values, previous values).
    pub(super) ops: Vec<u64>,
}

impl Scratch {
    /// Most bytes a worker keeps from one launch to the next: past it (a launch of large
    /// private arrays, say) the next launch starts afresh rather than hold the memory.
    const KEEP: usize = 8 << 20;

    /// The scratch this thread kept from its last launch, or a new one.
    pub(super) fn kept() -> Scratch {
        KEPT.with(|k| k.take()).unwrap_or_default()
    }

    /// Keeps this scratch for the thread's next launch (a launch of a few small groups then
    /// allocates nothing), unless it holds more than [`Scratch::KEEP`].
    pub(super) fn keep(self) {
        let items: usize = self
            .pool
            .iter()
            .map(|it| {
                it.regs.capacity() * 8
                    + it.mem.bytes.capacity()
                    + it.mem.undefined.capacity()
                    + it.mem.allocs.capacity() * 16
                    + it.st.frames.capacity() * std::mem::size_of::<Frame>()
            })
            .sum();
        let locals: usize = self.locals.iter().map(|m| m.lines.capacity() * 128).sum();
        let bytes = items
            + locals
            + self.pool.capacity() * std::mem::size_of::<Item>()
            + self.lanes.capacity() * 8
            + self.wis.capacity() * std::mem::size_of::<WorkItem>()
            + self.order.capacity() * 8
            + self.ops.capacity() * 8;
        if bytes <= Self::KEEP {
            KEPT.with(|k| k.set(Some(self)));
        }
    }
}

thread_local! {
    /// [`Scratch::keep`]'s: one per worker thread (the pool's and each queue's).
    static KEPT: std::cell::Cell<Option<Scratch>> = const { std::cell::Cell::new(None) };
}

/// One 128-byte line of local memory.
#[repr(C, align(128))]
#[derive(Clone, Copy)]
struct LocalLine([u8; 128]);

/// A work-group's local allocation, in whole aligned lines of its own: no other allocation,
/// another worker's in particular, shares a cache line with it.
#[derive(Default)]
pub(super) struct LocalMem {
    lines: Vec<LocalLine>,
    len: usize,
}

impl LocalMem {
    /// `len` zero bytes, in the lines already held when they suffice.
    pub(super) fn reset(&mut self, len: usize) {
        self.lines.clear();
        self.lines.resize(len.div_ceil(128), LocalLine([0; 128]));
        self.len = len;
    }
}

impl std::ops::Deref for LocalMem {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `lines` holds at least `len` initialised bytes (plain `u8` arrays, no
        // padding: size and alignment are both 128).
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast::<u8>(), self.len) }
    }
}

impl std::ops::DerefMut for LocalMem {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `deref`, through the unique borrow of `lines`.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast::<u8>(), self.len) }
    }
}

/// Most private memory one work-item may allocate ([`shadowcl_limits::Limits::private_memory`]):
/// every item of a group keeps its own, so a group of 1024 items may hold 4 GiB (real devices
/// allow far less).
pub(super) const PRIVATE_MEMORY_LIMIT: u64 = shadowcl_limits::LIMITS.private_memory;

/// A new private allocation of `size` bytes: its pointer.
pub(super) fn alloca(mem: &mut Priv, size: usize, align: usize) -> u64 {
    let align = align.clamp(1, 4096);
    let start = mem.bytes.len().div_ceil(align) * align;
    mem.bytes.resize(start + size, 0);
    if !mem.undefined.is_empty() {
        // A new allocation is defined unless `watch_alloca` says otherwise.
        mem.undefined.truncate(start);
    }
    mem.allocs.push((start, size));
    ptr::enc(ptr::TAG_PRIVATE, (mem.allocs.len() - 1) as u64, 0)
}

/// An `Alloca` op's allocation of `size` bytes: its pointer, or why the work-item may not
/// have it. `watch`: its bytes count as never written (for the definedness check).
pub(super) fn alloca_op(mem: &mut Priv, size: u32, align: u32, watch: bool) -> Result<u64, String> {
    let after = mem.bytes.len() as u64 + size as u64 + align as u64;
    if mem.allocs.len() as u64 >= ptr::IDX_MASK || after > PRIVATE_MEMORY_LIMIT {
        return Err(format!(
            "private memory of a work-item past {} MiB",
            PRIVATE_MEMORY_LIMIT >> 20
        ));
    }
    let p = alloca(mem, size as usize, align as usize);
    if watch {
        watch_alloca(mem);
    }
    Ok(p)
}

/// Marks the allocation `alloca` just made as never written (for the definedness check).
pub(super) fn watch_alloca(mem: &mut Priv) {
    if let Some(&(start, size)) = mem.allocs.last() {
        mem.undefined.resize(start, 0);
        mem.undefined.resize(start + size, 1);
    }
}

#[cfg(test)]
mod tests {
    use super::Priv;

    #[test]
    fn undefined_masks_gather_one_bit_per_byte() {
        for pattern in 0..=255u8 {
            for len in [3usize, 8, 12] {
                let mem = Priv {
                    undefined: (0..len).map(|i| (pattern >> (i % 8)) & 1).collect(),
                    ..Priv::default()
                };
                for at in 0..=len + 1 {
                    for n in 0..=8 {
                        let naive = (0..n)
                            .filter_map(|i| mem.undefined.get(at + i).map(|&b| (i, b)))
                            .fold(0u8, |m, (i, b)| m | (b & 1) << i);
                        assert_eq!(
                            mem.undefined_mask(at, n),
                            naive,
                            "{pattern:08b} at {at} n {n}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_store_defines_its_bytes_and_no_other() {
        for len in [3usize, 8, 12, 20] {
            for at in 0..=len + 1 {
                for n in 0..=12 {
                    let mut mem = Priv {
                        undefined: vec![1; len],
                        ..Priv::default()
                    };
                    mem.define(at, n, 0);
                    let expect: Vec<u8> = (0..len)
                        .map(|i| u8::from(!(at..at + n).contains(&i)))
                        .collect();
                    assert_eq!(mem.undefined, expect, "len {len} at {at} n {n}");
                }
            }
        }
    }
}
