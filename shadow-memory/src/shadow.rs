//! Global-memory shadow of one buffer: MARs in lazily allocated pages of atomics, one per
//! 4-byte word while every access covers whole words, one per byte where they do not.

use crate::mar;
use parking_lot::Mutex;
use std::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// The shadow memory all buffers of a session may use together (`SHADOWCL_SHADOW_LIMIT`).
/// Past it, pages of shadow are not allocated: accesses to their bytes go unchecked and the
/// buffer is marked degraded, which the report says (issue #15 item 4).
#[derive(Debug)]
pub(crate) struct ShadowBudget {
    limit: u64,
    used: AtomicU64,
}

impl ShadowBudget {
    pub(crate) fn new(limit: u64) -> Arc<ShadowBudget> {
        Arc::new(ShadowBudget {
            limit,
            used: AtomicU64::new(0),
        })
    }

    pub(crate) fn limit(&self) -> u64 {
        self.limit
    }

    fn reserve(&self, bytes: u64) -> bool {
        self.used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                u.checked_add(bytes).filter(|&n| n <= self.limit)
            })
            .is_ok()
    }

    fn release(&self, bytes: u64) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
    }
}

/// Bytes of device memory per shadow page.
const PAGE: u64 = 4096;
/// Bytes of device memory one word record stands for.
const WORD: u64 = 4;
/// A word record meaning "this word's bytes have records of their own". No record holds it:
/// a record naming no work-item is 0 or `INIT_BIT` (`mar::step` always names one).
const SPLIT: u64 = !mar::MAX_ITEM;

/// The records of one page of device memory.
///
/// Most buffers are accessed a word (or more) at a time, so a page starts with one record per
/// aligned 4-byte word (2 shadow bytes per data byte): the four bytes of a word have equal
/// records as long as every access covers all of them. The first access that covers part of
/// a word splits it: its record is copied to the word's four byte records and the word
/// holds `SPLIT` from then on. A page first touched by a narrower access starts with byte
/// records (8 shadow bytes per data byte, as a char buffer needs).
enum Page {
    Words {
        words: Box<[AtomicU64]>,
        /// Byte records of the split words (the others' entries are unused).
        bytes: OnceLock<Box<[AtomicU64]>>,
        /// Held while a word is split, so that two splits of one word cannot interleave.
        splitting: Mutex<()>,
    },
    Bytes(Box<[AtomicU64]>),
}

impl Page {
    fn new_words(bytes: u64, fresh: u64) -> Page {
        Page::Words {
            words: (0..bytes.div_ceil(WORD))
                .map(|_| AtomicU64::new(fresh))
                .collect(),
            bytes: OnceLock::new(),
            splitting: Mutex::new(()),
        }
    }

    fn new_bytes(bytes: u64, fresh: u64) -> Page {
        Page::Bytes((0..bytes).map(|_| AtomicU64::new(fresh)).collect())
    }

    fn shadow_bytes(&self) -> u64 {
        match self {
            Page::Words { words, bytes, .. } => {
                8 * (words.len() + bytes.get().map_or(0, |b| b.len())) as u64
            }
            Page::Bytes(b) => 8 * b.len() as u64,
        }
    }

    /// Every record of the page (a split word's byte records instead of its word record).
    fn for_each_record(&self, mut f: impl FnMut(&AtomicU64)) {
        match self {
            Page::Words { words, bytes, .. } => {
                for (w, c) in words.iter().enumerate() {
                    if c.load(Ordering::Acquire) != SPLIT {
                        f(c);
                    } else if let Some(b) = bytes.get() {
                        b[w * WORD as usize..]
                            .iter()
                            .take(WORD as usize)
                            .for_each(&mut f);
                    }
                }
            }
            Page::Bytes(b) => b.iter().for_each(f),
        }
    }
}

/// Bytes of device memory ahead of a long access whose word records are fetched early: the
/// compare-exchange of each record waits for its cache line, and a locked instruction keeps
/// later loads from starting, so a long access (a host transfer) would wait for every line
/// in turn.
const PREFETCH_AHEAD: u64 = 256;

/// Asks for `cell`'s cache line ahead of use (nothing on other architectures).
#[inline(always)]
fn prefetch(cell: Option<&AtomicU64>) {
    #[cfg(target_arch = "x86_64")]
    if let Some(c) = cell {
        // SAFETY: a prefetch is a hint that never faults; the pointer is a live record.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                c.as_ptr().cast::<i8>(),
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = cell;
}

/// Compare-exchange loop of one record: `step` (pure) runs again on the newer record when
/// another work-group's update landed first. `None` when the record is (now) `SPLIT`.
#[inline(always)]
fn step_record<S>(cell: &AtomicU64, mut step: impl FnMut(u64) -> (u64, S)) -> Option<(u64, S)> {
    let mut old = cell.load(Ordering::Acquire);
    loop {
        if old == SPLIT {
            return None;
        }
        let (new, s) = step(old);
        if new == old {
            return Some((old, s));
        }
        match cell.compare_exchange_weak(old, new, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return Some((old, s)),
            Err(now) => old = now,
        }
    }
}

pub(crate) struct Shadow {
    len: u64,
    /// Record a fresh page starts with: `INITIALISED` for buffers created from host data.
    fresh: u64,
    pages: Box<[OnceLock<Page>]>,
    /// The host wrote the whole page before anything touched it: it starts initialised
    /// (so host writes allocate no shadow).
    born_initialised: Box<[AtomicBool]>,
    /// Pages touched since the last reset: a reset (when item ids or sites run short after
    /// many settled launches) sweeps only those, not every page a big buffer ever had.
    dirty: Box<[AtomicBool]>,
    budget: Arc<ShadowBudget>,
    /// A page could not be had within the budget: some accesses went unchecked.
    degraded: AtomicBool,
    /// The report already says so.
    pub(crate) degraded_reported: AtomicBool,
}

impl Shadow {
    pub fn new(len: u64, initialised: bool, budget: Arc<ShadowBudget>) -> Shadow {
        let n = len.div_ceil(PAGE) as usize;
        let flags = || (0..n).map(|_| AtomicBool::new(false)).collect();
        Shadow {
            len,
            fresh: if initialised { mar::INITIALISED } else { 0 },
            pages: (0..n).map(|_| OnceLock::new()).collect(),
            born_initialised: flags(),
            dirty: flags(),
            budget,
            degraded: AtomicBool::new(false),
            degraded_reported: AtomicBool::new(false),
        }
    }

    /// Bytes of device memory shadowed.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Whether some bytes went unchecked for want of shadow memory.
    pub fn degraded(&self) -> bool {
        self.degraded.load(Ordering::Relaxed)
    }

    /// Bytes of device memory page `index` covers (the last page covers only the tail).
    fn page_len(&self, index: u64) -> u64 {
        PAGE.min(self.len - index * PAGE)
    }

    /// Reserves `bytes` of shadow, or marks the buffer degraded.
    fn reserve(&self, bytes: u64) -> bool {
        let ok = self.budget.reserve(bytes);
        if !ok {
            self.degraded.store(true, Ordering::Relaxed);
        }
        ok
    }

    /// Page `index`, allocated on first touch (word records when `words`) and marked dirty.
    /// Inline: every word access asks for its page (a lockstep operation's lanes ask for
    /// one page again and again); the allocation is out of line.
    #[inline(always)]
    fn page(&self, index: u64, words: bool) -> Option<&Page> {
        let slot = self.pages.get(index as usize)?;
        let dirty = self.dirty.get(index as usize)?;
        if !dirty.load(Ordering::Relaxed) {
            dirty.store(true, Ordering::Relaxed);
        }
        match slot.get() {
            Some(p) => Some(p),
            None => self.first_touch(index, words),
        }
    }

    /// Allocates page `index` (see [`Shadow::page`]).
    #[cold]
    #[inline(never)]
    fn first_touch(&self, index: u64, words: bool) -> Option<&Page> {
        let slot = self.pages.get(index as usize)?;
        let n = self.page_len(index);
        let cost = if words { n.div_ceil(WORD) * 8 } else { n * 8 };
        if !self.reserve(cost) {
            return None;
        }
        let born = &self.born_initialised[index as usize];
        let mut mine = false;
        let p = slot.get_or_init(|| {
            mine = true;
            let fresh = self.fresh_record(index as usize);
            if words {
                Page::new_words(n, fresh)
            } else {
                Page::new_bytes(n, fresh)
            }
        });
        if !mine {
            // Another thread allocated the page meanwhile: its reservation counts.
            self.budget.release(cost);
        } else {
            // The host may have marked the page initialised after the records were made
            // (see `initialise`): one of the two sides sees the other's store.
            fence(Ordering::SeqCst);
            if born.load(Ordering::SeqCst) {
                p.for_each_record(|c| {
                    c.fetch_or(mar::INIT_BIT, Ordering::Relaxed);
                });
            }
        }
        Some(p)
    }

    /// The byte records of word `w` of `page`, splitting it first if it is not yet.
    fn split<'p>(&self, page: &'p Page, w: usize) -> Option<&'p [AtomicU64]> {
        let (words, bytes, splitting) = match page {
            Page::Words {
                words,
                bytes,
                splitting,
            } => (words, bytes, splitting),
            Page::Bytes(b) => return b.get(w * WORD as usize..),
        };
        let at = w * WORD as usize;
        if words[w].load(Ordering::Acquire) == SPLIT {
            return bytes.get().and_then(|b| b.get(at..at + WORD as usize));
        }
        let bytes = match bytes.get() {
            Some(b) => b,
            None => {
                let n = words.len() as u64 * WORD;
                if !self.reserve(n * 8) {
                    return None;
                }
                let mut mine = false;
                let b = bytes.get_or_init(|| {
                    mine = true;
                    (0..n).map(|_| AtomicU64::new(0)).collect()
                });
                if !mine {
                    self.budget.release(n * 8);
                }
                b
            }
        };
        let mine = &bytes[at..at + WORD as usize];
        let _one_split = splitting.lock();
        // Unsplit updates may still land on the word: copy its latest record, and publish
        // `SPLIT` only over the record copied (byte records are read only after `SPLIT`).
        let mut old = words[w].load(Ordering::Acquire);
        while old != SPLIT {
            mine.iter().for_each(|c| c.store(old, Ordering::Relaxed));
            match words[w].compare_exchange(old, SPLIT, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => break,
                Err(now) => old = now,
            }
        }
        Some(mine)
    }

    /// The record of the aligned word at `offset` while it stands for all four of its bytes
    /// (the page allocated with word records if untouched); `None` when the word is split, its
    /// page holds byte records, or it has no shadow.
    #[inline]
    pub fn word(&self, offset: u64) -> Option<&AtomicU64> {
        if !offset.is_multiple_of(WORD) || offset.checked_add(WORD)? > self.len {
            return None;
        }
        match self.page(offset / PAGE, true)? {
            Page::Words { words, .. } => {
                let w = &words[(offset % PAGE / WORD) as usize];
                (w.load(Ordering::Relaxed) != SPLIT).then_some(w)
            }
            Page::Bytes(_) => None,
        }
    }

    /// Asks for the cache line of `offset`'s word record ahead of a [`Shadow::word`] (when
    /// its page has word records already; allocates nothing).
    #[inline]
    pub fn prefetch_word(&self, offset: u64) {
        let page = self
            .pages
            .get((offset / PAGE) as usize)
            .and_then(|p| p.get());
        if let Some(Page::Words { words, .. }) = page {
            prefetch(words.get((offset % PAGE / WORD) as usize));
        }
    }

    /// [`Shadow::update`] of one word record got from [`Shadow::word`]; `None` when the word
    /// was split meanwhile (the caller goes through `update`).
    #[inline(always)]
    pub fn update_word<S>(cell: &AtomicU64, step: impl FnMut(u64) -> (u64, S)) -> Option<(u64, S)> {
        step_record(cell, step)
    }

    /// Checks and updates the records of bytes `offset..offset + len`: `step(i, old)` (pure:
    /// it runs again when another work-group's update lands first) gives the new record of
    /// the bytes from byte `i` of the range and what the caller keeps of it; `done(i, n, old,
    /// kept)` then follows for each unit of `n` bytes from byte `i` that shares one record
    /// (a word or a byte, in address order). `bytewise`: the step differs between the bytes
    /// of a word (the word is split). Stops at the first byte without shadow (past the end,
    /// or past the budget).
    pub fn update<S>(
        &self,
        offset: u64,
        len: u64,
        bytewise: bool,
        mut step: impl FnMut(u64, u64) -> (u64, S),
        mut done: impl FnMut(u64, u64, u64, S),
    ) {
        let end = offset.saturating_add(len).min(self.len);
        let mut o = offset;
        while o < end {
            let index = o / PAGE;
            let words = !bytewise && o.is_multiple_of(WORD) && end - o >= WORD;
            let Some(page) = self.page(index, words) else {
                return;
            };
            let page_end = ((index + 1) * PAGE).min(end);
            while o < page_end {
                let at = (o % PAGE) as usize;
                if let Page::Words { words, .. } = page {
                    let whole = !bytewise && o.is_multiple_of(WORD) && page_end - o >= WORD;
                    let w = at / WORD as usize;
                    if w.is_multiple_of(8) && page_end - o > PREFETCH_AHEAD {
                        prefetch(words.get(w + PREFETCH_AHEAD as usize / WORD as usize));
                    }
                    let word = &words[w];
                    if whole {
                        if let Some((old, s)) = step_record(word, |old| step(o - offset, old)) {
                            done(o - offset, WORD, old, s);
                            o += WORD;
                            continue;
                        }
                    }
                }
                let Some(records) = self.split(page, at / WORD as usize) else {
                    return;
                };
                let unit_end = (o - o % WORD + WORD).min(page_end);
                for (c, x) in records.iter().skip(at % WORD as usize).zip(o..unit_end) {
                    if let Some((old, s)) = step_record(c, |old| step(x - offset, old)) {
                        done(x - offset, 1, old, s);
                    }
                }
                o = unit_end;
            }
        }
    }

    /// The record every byte of untouched page `index` has: initialised when the host wrote
    /// the whole page before any record was made.
    fn fresh_record(&self, index: usize) -> u64 {
        if self.born_initialised[index].load(Ordering::SeqCst) {
            self.fresh | mar::INIT_BIT
        } else {
            self.fresh
        }
    }

    /// The record of byte `offset`, without allocating (an untouched page holds its fresh
    /// record).
    pub fn record(&self, offset: u64) -> Option<u64> {
        if offset >= self.len {
            return None;
        }
        let index = (offset / PAGE) as usize;
        let at = (offset % PAGE) as usize;
        let Some(page) = self.pages[index].get() else {
            return Some(self.fresh_record(index));
        };
        match page {
            Page::Words { words, bytes, .. } => {
                let w = words[at / WORD as usize].load(Ordering::Acquire);
                if w != SPLIT {
                    return Some(w);
                }
                bytes.get().map(|b| b[at].load(Ordering::Relaxed))
            }
            Page::Bytes(b) => Some(b[at].load(Ordering::Relaxed)),
        }
    }

    /// Applies `f` to every record of the pages touched since the last call (untouched pages
    /// hold `fresh` or were already swept).
    fn for_each_touched(&self, f: impl Fn(u64) -> u64) {
        let touched = self.pages.iter().zip(self.dirty.iter());
        for (page, _) in touched.filter(|(_, d)| d.swap(false, Ordering::Relaxed)) {
            let Some(page) = page.get() else { continue };
            page.for_each_record(|c| {
                // A loop, not load-then-store: the host may mark bytes initialised from
                // another thread meanwhile, and that mark must survive.
                // Records already as `f` makes them (most, after a reset) are not written.
                let _ = c.fetch_update(Ordering::AcqRel, Ordering::Acquire, |v| {
                    let new = f(v);
                    (v != SPLIT && new != v).then_some(new)
                });
            });
        }
    }

    /// Applies `f` to every allocated record while other work-groups may be accessing the
    /// buffer: a record that changed meanwhile belongs to a newer access and is left alone.
    pub fn update_allocated(&self, f: impl Fn(u64) -> u64) {
        for page in self.pages.iter().filter_map(|p| p.get()) {
            page.for_each_record(|c| {
                let old = c.load(Ordering::Acquire);
                let new = f(old);
                if old != SPLIT && new != old {
                    let _ = c.compare_exchange(old, new, Ordering::AcqRel, Ordering::Relaxed);
                }
            });
        }
    }

    /// Full synchronisation: forget every access, keep "initialised".
    pub fn reset(&self) {
        self.for_each_touched(mar::reset);
    }

    /// The host wrote `offset..offset+len`.
    pub fn initialise(&self, offset: u64, len: u64) {
        let end = offset.saturating_add(len).min(self.len);
        let mut o = offset;
        while o < end {
            let index = o / PAGE;
            let page_end = (index + 1) * PAGE;
            if self.pages[index as usize].get().is_none() {
                if self.fresh == mar::INITIALISED {
                    o = page_end;
                    continue; // untouched page of an initialised buffer: already initialised
                }
                if o == index * PAGE && end >= index * PAGE + self.page_len(index) {
                    // The whole page, untouched: it will be born initialised.
                    self.born_initialised[index as usize].store(true, Ordering::SeqCst);
                    fence(Ordering::SeqCst);
                    if self.pages[index as usize].get().is_none() {
                        o = page_end;
                        continue;
                    }
                }
            }
            let upto = page_end.min(end);
            self.update(
                o,
                upto - o,
                false,
                |_, old| (old | mar::INIT_BIT, ()),
                |_, _, _, _| {},
            );
            o = upto;
        }
    }

    /// Bytes of shadow currently allocated (for tests, statistics and the budget).
    pub fn allocated_bytes(&self) -> usize {
        self.pages
            .iter()
            .filter_map(OnceLock::get)
            .map(|p| p.shadow_bytes() as usize)
            .sum()
    }
}

impl Drop for Shadow {
    fn drop(&mut self) {
        self.budget.release(self.allocated_bytes() as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sets bytes `offset..offset + len` to `rec`; returns the units seen as (byte, length).
    fn set(s: &Shadow, offset: u64, len: u64, rec: u64) -> Vec<(u64, u64)> {
        let mut units = vec![];
        s.update(
            offset,
            len,
            false,
            |_, _| (rec, ()),
            |i, n, _, _| units.push((i, n)),
        );
        units
    }

    fn records(s: &Shadow, range: std::ops::Range<u64>) -> Vec<u64> {
        range.map(|o| s.record(o).unwrap()).collect()
    }

    #[test]
    fn pages_are_allocated_on_first_touch_and_reset_keeps_init() {
        let budget = ShadowBudget::new(u64::MAX);
        let s = Shadow::new(3 * PAGE, false, budget.clone());
        assert_eq!(s.allocated_bytes(), 0);
        assert_eq!(set(&s, PAGE + 4, 8, u64::MAX >> 1), [(0, 4), (4, 4)]);
        assert_eq!(
            s.allocated_bytes(),
            PAGE as usize * 2,
            "2 shadow bytes per byte"
        );
        let small = Shadow::new(10, true, budget.clone());
        set(&small, 9, 1, 1);
        assert_eq!(small.allocated_bytes(), 80, "a byte access: byte records");
        assert_eq!(set(&s, 3 * PAGE, 4, 1), [], "past the end");
        s.reset();
        assert!(s.dirty.iter().all(|d| !d.load(Ordering::Relaxed)));
        assert_eq!(s.record(PAGE + 5), Some(0));
        set(&s, PAGE + 4, 4, mar::INIT_BIT | 7);
        s.reset();
        assert_eq!(s.record(PAGE + 5), Some(mar::INIT_BIT));
        s.initialise(0, 2);
        assert_eq!(records(&s, 0..3), [mar::INIT_BIT, mar::INIT_BIT, 0]);
    }

    #[test]
    fn a_partial_access_splits_its_word_only_and_keeps_its_record() {
        let s = Shadow::new(2 * PAGE, false, ShadowBudget::new(u64::MAX));
        set(&s, 0, 16, 5);
        assert_eq!(set(&s, 5, 2, 9), [(0, 1), (1, 1)]);
        assert_eq!(records(&s, 0..12), [5, 5, 5, 5, 5, 9, 9, 5, 5, 5, 5, 5]);
        assert_eq!(s.allocated_bytes(), (PAGE / 4 * 8 + PAGE * 8) as usize);
        // The split word is seen byte by byte from then on, its neighbours by word.
        assert_eq!(
            set(&s, 0, 12, 3),
            [(0, 4), (4, 1), (5, 1), (6, 1), (7, 1), (8, 4)]
        );
        // Reset and ageing reach the byte records of a split word.
        s.reset();
        assert_eq!(records(&s, 4..8), [0; 4]);
        set(&s, 4, 4, 11);
        s.update_allocated(|r| r + 1);
        assert_eq!(records(&s, 3..9), [1, 12, 12, 12, 12, 1]);
        // A bytewise update splits every word it touches.
        assert_eq!(set(&s, 9, 1, 2).len(), 1);
        let mut units = vec![];
        s.update(12, 8, true, |_, r| (r, ()), |i, n, _, _| units.push((i, n)));
        assert_eq!(units, (0..8).map(|i| (i, 1)).collect::<Vec<_>>());
    }

    #[test]
    fn host_writes_of_whole_untouched_pages_allocate_nothing() {
        let s = Shadow::new(3 * PAGE + 10, false, ShadowBudget::new(u64::MAX));
        s.initialise(0, 2 * PAGE);
        assert_eq!(s.allocated_bytes(), 0);
        assert_eq!(s.record(PAGE + 7), Some(mar::INIT_BIT));
        assert_eq!(s.record(2 * PAGE), Some(0));
        // A page born initialised starts so once touched.
        set(&s, 8, 4, mar::INIT_BIT | 3);
        assert_eq!(
            records(&s, 4..12),
            [mar::INIT_BIT; 4]
                .iter()
                .chain(&[mar::INIT_BIT | 3; 4])
                .copied()
                .collect::<Vec<_>>()
        );
        // Part of a page, and a page already touched, are marked record by record.
        set(&s, 2 * PAGE, 4, 1);
        s.initialise(2 * PAGE + 2, PAGE + 10);
        assert_eq!(
            records(&s, 2 * PAGE..2 * PAGE + 4),
            [1, 1, 1 | mar::INIT_BIT, 1 | mar::INIT_BIT]
        );
        assert_eq!(
            s.record(3 * PAGE + 9),
            Some(mar::INIT_BIT),
            "the last, short page"
        );
    }

    #[test]
    fn concurrent_word_updates_and_splits_lose_nothing() {
        // Each thread adds its bit to every record of the range, half of them a byte at a
        // time: whatever the interleaving of updates and splits, every byte gets every bit.
        let s = Shadow::new(PAGE, false, ShadowBudget::new(u64::MAX));
        set(&s, 0, PAGE, 0);
        std::thread::scope(|scope| {
            for t in 0..8u64 {
                let s = &s;
                scope.spawn(move || {
                    for round in 0..4 {
                        let bytewise = t % 2 == 1 && round % 2 == 0;
                        let (start, len) = if bytewise { (1, PAGE - 2) } else { (0, PAGE) };
                        s.update(
                            start,
                            len,
                            bytewise,
                            |_, r| (r | 1 << (t * 4 + round), ()),
                            |_, _, _, _| {},
                        );
                    }
                });
            }
        });
        let all = (0..32).fold(0u64, |m, b| m | 1 << b);
        // The ends are outside the bytewise rounds (odd threads, even rounds).
        let ends = (0..32)
            .filter(|b| !(b / 4 % 2 == 1 && b % 4 % 2 == 0))
            .fold(0u64, |m, b| m | 1 << b);
        assert_eq!(s.record(0), Some(ends));
        assert_eq!(s.record(PAGE - 1), Some(ends));
        for o in 1..PAGE - 1 {
            assert_eq!(s.record(o), Some(all), "byte {o}");
        }
    }

    /// One operation of [`word_records_behave_like_one_record_per_byte`].
    #[derive(Clone, Debug)]
    enum Step {
        Update {
            offset: u64,
            len: u64,
            bytewise: bool,
            salt: u64,
        },
        Initialise {
            offset: u64,
            len: u64,
        },
        Reset,
    }

    fn step() -> impl proptest::strategy::Strategy<Value = Step> {
        use proptest::prelude::*;
        // Offsets near page ends and word edges, short and long ranges, all widths.
        let offset = prop_oneof![0..3 * PAGE + 8, (1..4u64).prop_map(|p| p * PAGE - 3)];
        prop_oneof![
            6 => (offset.clone(), 1..40u64, any::<bool>(), 1..1000u64).prop_map(
                |(offset, len, bytewise, salt)| Step::Update { offset, len, bytewise, salt }
            ),
            1 => (offset, 1..2 * PAGE).prop_map(|(offset, len)| Step::Initialise { offset, len }),
            1 => Just(Step::Reset),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Whatever mix of whole-word, partial and bytewise updates, host writes and resets,
        /// every byte reads as the record a byte-per-record shadow would hold, and every
        /// unit `update` reports covers bytes whose records were equal.
        #[test]
        fn word_records_behave_like_one_record_per_byte(
            steps in proptest::collection::vec(step(), 1..40),
            initialised in proptest::prelude::any::<bool>(),
        ) {
            let len = 3 * PAGE + 6;
            let s = Shadow::new(len, initialised, ShadowBudget::new(u64::MAX));
            let fresh = if initialised { mar::INIT_BIT } else { 0 };
            let mut model = vec![fresh; len as usize];
            // A record's next value: different per salt and (bytewise) per byte; never
            // item 0 with more than the init bit, like real records.
            let next = |old: u64, salt: u64, i: u64| (old.wrapping_mul(31) ^ salt ^ i) | 1;
            for st in &steps {
                match *st {
                    Step::Update { offset, len: n, bytewise, salt } => {
                        let end = (offset + n).min(len);
                        let mut seen = vec![];
                        s.update(offset, n, bytewise, |i, old| {
                            let k = if bytewise { i } else { 0 };
                            (next(old, salt, k), ())
                        }, |i, n, old, _| seen.push((offset + i, n, old)));
                        for (at, n, old) in &seen {
                            for b in *at..at + n {
                                proptest::prop_assert_eq!(model[b as usize], *old, "unit at {}", at);
                            }
                        }
                        let covered: u64 = seen.iter().map(|u| u.1).sum();
                        proptest::prop_assert_eq!(covered, end.saturating_sub(offset));
                        for b in offset..end {
                            let k = if bytewise { b - offset } else { 0 };
                            model[b as usize] = next(model[b as usize], salt, k);
                        }
                    }
                    Step::Initialise { offset, len: n } => {
                        s.initialise(offset, n);
                        for b in offset..(offset + n).min(len) {
                            model[b as usize] |= mar::INIT_BIT;
                        }
                    }
                    Step::Reset => {
                        s.reset();
                        model.iter_mut().for_each(|r| *r = mar::reset(*r));
                    }
                }
                for (b, want) in model.iter().enumerate() {
                    proptest::prop_assert_eq!(s.record(b as u64), Some(*want), "byte {} after {:?}", b, st);
                }
            }
        }
    }

    #[test]
    fn past_the_budget_pages_go_unchecked_and_the_buffer_says_so() {
        let budget = ShadowBudget::new(PAGE * 2 + 80);
        let a = Shadow::new(3 * PAGE, false, budget.clone());
        assert_eq!(set(&a, 0, 4, 1).len(), 1);
        assert_eq!(set(&a, PAGE, 4, 1), [], "a second page is past the budget");
        assert!(a.degraded());
        let small = Shadow::new(10, false, budget.clone());
        assert_eq!(
            set(&small, 3, 1, 1).len(),
            1,
            "80 bytes of shadow still fit"
        );
        assert!(!small.degraded());
        drop(a);
        assert_eq!(
            budget.used.load(Ordering::Relaxed),
            80,
            "a dropped shadow gives back"
        );
        let b = Shadow::new(3 * PAGE, false, budget.clone());
        assert_eq!(set(&b, 2 * PAGE, 4, 1).len(), 1);
        // Splitting needs byte records: past the budget the word's bytes go unchecked.
        assert_eq!(set(&b, 2 * PAGE + 1, 1, 1), []);
        assert!(b.degraded());
    }
}
