//! Global-memory shadow of one buffer: MARs in lazily allocated pages of atomics, one per
//! 4-byte word while every access covers whole words, one per byte where they do not.
//!
//! Performance: a page has three record grains, each splitting into the next at the first
//! access it cannot stand for. One record per 16-word block, while only lockstep operations of
//! consecutive lanes over whole blocks touch it (word `k` by the item `k` after the one named:
//! `block_word`). One per aligned 4-byte word, while every access covers whole words. One per
//! byte. The access that first touches a page picks its grain: a lockstep operation's
//! (`WordCursor::for_lanes`) starts it with block records even when its own lanes go word by
//! word, a work-item's with word records, a narrower access's with byte records. A 2-D group's
//! border column is often first in its page, so only its block is split.
//!
//! Checkers reach records only through `Shadow::update` (a compare-exchange loop per record
//! that handles splits), `Shadow::update_block` (one loop for a block's words, taken only when
//! the steps find nothing and leave the words a block's), `Shadow::word` with
//! `Shadow::update_word` (the same loop on one unsplit word record: the path of aligned scalar
//! accesses) and `Shadow::record`. They never store to the atomics themselves. A property test
//! holds block, word and byte records to a byte-per-record model. Reads of memory the launch
//! never writes settle without splitting (`Shadow::words_all`, which asks a block record's
//! range at its two ends). A host write of a whole untouched page allocates nothing: the page is
//! born initialised. A host command checked for races (an `clEnqueueWriteBuffer`) records per
//! word.

use crate::mar;
use parking_lot::Mutex;
use std::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// The shadow memory all buffers of a session may use together (`SHADOWCL_SHADOW_LIMIT`).
/// Past it, pages of shadow are not allocated: accesses to their bytes go unchecked and the
/// buffer is marked degraded, which the report says.
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
/// Words one block record stands for.
pub(crate) const BLOCK_WORDS: u64 = 16;
/// Bytes of device memory one block record stands for (a page holds whole blocks).
pub const BLOCK: u64 = BLOCK_WORDS * WORD;
/// A block or word record meaning "this block's words (this word's bytes) have records of
/// their own". No record holds it: a record naming no work-item is 0 or `INIT_BIT`
/// (`mar::step` always names one).
const SPLIT: u64 = !mar::MAX_ITEM;

/// Word `k`'s record in a block whose record is `rec`: a block record that names a work-item
/// stands for words accessed by consecutive work-items (word `k` by the item `k` after the
/// named one, every other field equal: what a lockstep operation of consecutive lanes over
/// consecutive words leaves); one that names none, for words with equal records.
#[inline(always)]
pub(crate) fn block_word(rec: u64, k: u64) -> u64 {
    if mar::item_of(rec) == 0 {
        rec
    } else {
        rec + k
    }
}

/// Whether `rec` can be a block record: not `SPLIT`, and its words' items fit their field.
#[inline(always)]
pub(crate) fn is_block_record(rec: u64) -> bool {
    let item = mar::item_of(rec) as u64;
    rec != SPLIT && (item == 0 || item + BLOCK_WORDS - 1 <= mar::MAX_ITEM)
}

/// The block record whose word `k` would hold `f(k, word k of block record old)`; `None`
/// when `f` says `None` for a word, or the new words are not one block's (see [`block_word`]).
#[inline(always)]
pub fn block_map(old: u64, mut f: impl FnMut(u64, u64) -> Option<u64>) -> Option<u64> {
    let first = f(0, block_word(old, 0))?;
    if !is_block_record(first) {
        return None;
    }
    for k in 1..BLOCK_WORDS {
        if f(k, block_word(old, k))? != block_word(first, k) {
            return None;
        }
    }
    Some(first)
}

/// How a page's records start, chosen by the access that first touches it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Grain {
    Blocks,
    Words,
    Bytes,
}

/// How [`Page::map_records`] writes a record `f` changes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Map {
    /// Until it lands: a record that changed meanwhile gets `f` of its newer value.
    Always,
    /// Once: a record that changed meanwhile belongs to a newer access and stays.
    UnlessChanged,
}

/// Word records of a page (or of a block page's split blocks), each splitting into byte
/// records when an access covers part of its word.
struct WordRecords {
    words: Box<[AtomicU64]>,
    /// Byte records of the split words (the others' entries are unused).
    bytes: OnceLock<Box<[AtomicU64]>>,
    /// Held while a word is split, so that two splits of one word cannot interleave.
    splitting: Mutex<()>,
}

impl WordRecords {
    fn new(words: u64, fresh: u64) -> WordRecords {
        WordRecords {
            words: (0..words).map(|_| AtomicU64::new(fresh)).collect(),
            bytes: OnceLock::new(),
            splitting: Mutex::new(()),
        }
    }

    fn shadow_bytes(&self) -> u64 {
        8 * (self.words.len() + self.bytes.get().map_or(0, |b| b.len())) as u64
    }

    /// Every record of words `range` (a split word's byte records instead of its record).
    fn for_each_record(&self, range: std::ops::Range<usize>, mut f: impl FnMut(&AtomicU64)) {
        for w in range {
            let c = &self.words[w];
            if c.load(Ordering::Acquire) != SPLIT {
                f(c);
            } else if let Some(b) = self.bytes.get() {
                b[w * WORD as usize..]
                    .iter()
                    .take(WORD as usize)
                    .for_each(&mut f);
            }
        }
    }

    /// The byte records of word `w`, splitting it first if it is not yet (`None` past the
    /// shadow budget).
    fn split(&self, shadow: &Shadow, w: usize) -> Option<&[AtomicU64]> {
        let at = w * WORD as usize;
        if self.words[w].load(Ordering::Acquire) == SPLIT {
            return self.bytes.get().and_then(|b| b.get(at..at + WORD as usize));
        }
        let n = self.words.len() as u64 * WORD;
        let bytes = shadow.lazily(&self.bytes, n * 8, || {
            (0..n).map(|_| AtomicU64::new(0)).collect()
        })?;
        let mine = &bytes[at..at + WORD as usize];
        let _one_split = self.splitting.lock();
        // Unsplit updates may still land on the word: copy its latest record, and publish
        // `SPLIT` only over the record copied (byte records are read only after `SPLIT`).
        let mut old = self.words[w].load(Ordering::Acquire);
        while old != SPLIT {
            mine.iter().for_each(|c| c.store(old, Ordering::Relaxed));
            match self.words[w].compare_exchange(old, SPLIT, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => break,
                Err(now) => old = now,
            }
        }
        Some(mine)
    }

    /// The record of byte `at` of the words.
    fn record(&self, at: usize) -> Option<u64> {
        let w = self.words[at / WORD as usize].load(Ordering::Acquire);
        if w != SPLIT {
            return Some(w);
        }
        self.bytes.get().map(|b| b[at].load(Ordering::Relaxed))
    }
}

/// Applies `f` to one record as `how` says; a `SPLIT` record is left alone.
fn map_record(c: &AtomicU64, f: &impl Fn(u64) -> u64, how: Map) {
    match how {
        Map::Always => {
            let _ = c.fetch_update(Ordering::AcqRel, Ordering::Acquire, |v| {
                let new = f(v);
                (v != SPLIT && new != v).then_some(new)
            });
        }
        Map::UnlessChanged => {
            let old = c.load(Ordering::Acquire);
            let new = f(old);
            if old != SPLIT && new != old {
                let _ = c.compare_exchange(old, new, Ordering::AcqRel, Ordering::Relaxed);
            }
        }
    }
}

/// Where [`Shadow::word_at`] last found a block's word records: kept by a work-group (or a
/// lockstep operation's check) between accesses, so that the next word of the block needs
/// no page lookup.
#[derive(Clone, Copy, Debug)]
pub struct WordCursor {
    /// The [`Shadow`]'s id (0: none).
    shadow: u64,
    /// The block's first byte.
    start: u64,
    words: *const AtomicU64,
    len: usize,
    /// What a page this cursor's access touches first starts with.
    grain: Grain,
}

impl Default for WordCursor {
    /// A work-item's: a page it touches first starts with word records.
    fn default() -> WordCursor {
        WordCursor {
            shadow: 0,
            start: 0,
            words: std::ptr::null(),
            len: 0,
            grain: Grain::Words,
        }
    }
}

impl WordCursor {
    /// A lockstep operation's lanes': a page they touch first starts with block records
    /// (only the block of the access is split). The lanes that go word by word are often a
    /// few at an edge (a 2-D group's border column, first in its page): the page's other
    /// blocks are rows that later operations check as one record each.
    pub fn for_lanes() -> WordCursor {
        WordCursor {
            grain: Grain::Blocks,
            ..WordCursor::default()
        }
    }
}

// SAFETY: the pointer is followed only by `Shadow::word_at`, against the shadow it came
// from, to atomics (which any thread may use); a cursor alone reaches nothing.
unsafe impl Send for WordCursor {}

/// The records of one page of device memory.
///
/// Most buffers are accessed a word (or more) at a time, so a page starts with one record per
/// aligned 4-byte word (2 shadow bytes per data byte): the four bytes of a word have equal
/// records as long as every access covers all of them. The first access that covers part of
/// a word splits it: its record is copied to the word's four byte records and the word
/// holds `SPLIT` from then on. A page first touched by a narrower access starts with byte
/// records (8 shadow bytes per data byte, as a char buffer needs). A page first touched by a
/// lockstep operation's word access starts with block records (1/8 shadow byte per data
/// byte): as long as operations of consecutive lanes over whole blocks of consecutive words
/// are all that touch a block, its words' records differ only by their items (see
/// [`block_word`]); the first access of another shape splits the block into word records the
/// same way (the page's word records are allocated then, 2 1/8 shadow bytes per data byte).
enum Page {
    Blocks {
        blocks: Box<[AtomicU64]>,
        /// Word records of the split blocks (the others' entries are unused).
        words: OnceLock<WordRecords>,
        /// Held while a block is split.
        splitting: Mutex<()>,
    },
    Words(WordRecords),
    Bytes(Box<[AtomicU64]>),
}

impl Page {
    fn new(grain: Grain, bytes: u64, fresh: u64) -> Page {
        let cells = |n: u64| (0..n).map(|_| AtomicU64::new(fresh)).collect();
        match grain {
            Grain::Blocks => Page::Blocks {
                blocks: cells(bytes.div_ceil(BLOCK)),
                words: OnceLock::new(),
                splitting: Mutex::new(()),
            },
            Grain::Words => Page::Words(WordRecords::new(bytes.div_ceil(WORD), fresh)),
            Grain::Bytes => Page::Bytes(cells(bytes)),
        }
    }

    /// Shadow bytes a new page of `bytes` device bytes takes.
    fn cost(grain: Grain, bytes: u64) -> u64 {
        8 * match grain {
            Grain::Blocks => bytes.div_ceil(BLOCK),
            Grain::Words => bytes.div_ceil(WORD),
            Grain::Bytes => bytes,
        }
    }

    fn shadow_bytes(&self) -> u64 {
        match self {
            Page::Blocks { blocks, words, .. } => {
                8 * blocks.len() as u64 + words.get().map_or(0, WordRecords::shadow_bytes)
            }
            Page::Words(w) => w.shadow_bytes(),
            Page::Bytes(b) => 8 * b.len() as u64,
        }
    }

    /// Applies `f` to every record of the page as `how` says. A block whose words `f` makes
    /// differ by more than their items is split first (`None` when the budget denies it: the
    /// buffer is degraded, the block left as it was).
    fn map_records(&self, shadow: &Shadow, f: impl Fn(u64) -> u64, how: Map) {
        match self {
            Page::Blocks { blocks, .. } => {
                for b in 0..blocks.len() {
                    self.map_block(shadow, b, &f, how);
                }
            }
            Page::Words(w) => w.for_each_record(0..w.words.len(), |c| map_record(c, &f, how)),
            Page::Bytes(b) => b.iter().for_each(|c| map_record(c, &f, how)),
        }
    }

    /// [`Page::map_records`] of block `b` of a block page.
    fn map_block(&self, shadow: &Shadow, b: usize, f: &impl Fn(u64) -> u64, how: Map) {
        let Page::Blocks { blocks, words, .. } = self else {
            return;
        };
        let cell = &blocks[b];
        let mut old = cell.load(Ordering::Acquire);
        loop {
            if old == SPLIT {
                if let Some(w) = words.get() {
                    let first = b * BLOCK_WORDS as usize;
                    let end = (first + BLOCK_WORDS as usize).min(w.words.len());
                    w.for_each_record(first..end, |c| map_record(c, f, how));
                }
                return;
            }
            let Some(new) = block_map(old, |_, r| Some(f(r))) else {
                if self.split_block(shadow, b).is_none() {
                    return;
                }
                old = SPLIT;
                continue;
            };
            if new == old {
                return;
            }
            match cell.compare_exchange(old, new, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return,
                Err(_) if how == Map::UnlessChanged => return,
                Err(now) => old = now,
            }
        }
    }

    /// The word records of the page, splitting the block of byte `at` first on a block
    /// page; `None` for a page of byte records, or past the budget.
    #[inline(always)]
    fn words_at(&self, shadow: &Shadow, at: usize) -> Option<&WordRecords> {
        match self {
            Page::Words(w) => Some(w),
            Page::Blocks { blocks, words, .. } => {
                let b = at / BLOCK as usize;
                match words.get() {
                    Some(w) if blocks[b].load(Ordering::Acquire) == SPLIT => Some(w),
                    _ => self.split_block(shadow, b),
                }
            }
            Page::Bytes(_) => None,
        }
    }

    /// Splits block `b` of a block page into word records (see [`WordRecords::split`]).
    #[cold]
    #[inline(never)]
    fn split_block(&self, shadow: &Shadow, b: usize) -> Option<&WordRecords> {
        let Page::Blocks {
            blocks,
            words,
            splitting,
        } = self
        else {
            return None;
        };
        // The last page's last block may be short: its word records are a few unused.
        let n = blocks.len() as u64 * BLOCK_WORDS;
        let w = shadow.lazily(words, n * 8, || WordRecords::new(n, 0))?;
        let first = b * BLOCK_WORDS as usize;
        let mine = w
            .words
            .get(first..(first + BLOCK_WORDS as usize).min(w.words.len()))?;
        let _one_split = splitting.lock();
        let mut old = blocks[b].load(Ordering::Acquire);
        while old != SPLIT {
            for (k, c) in mine.iter().enumerate() {
                c.store(block_word(old, k as u64), Ordering::Relaxed);
            }
            match blocks[b].compare_exchange(old, SPLIT, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => break,
                Err(now) => old = now,
            }
        }
        Some(w)
    }

    /// The record of byte `at`.
    fn record(&self, at: usize) -> Option<u64> {
        match self {
            Page::Blocks { blocks, words, .. } => {
                let rec = blocks[at / BLOCK as usize].load(Ordering::Acquire);
                if rec != SPLIT {
                    return Some(block_word(rec, (at as u64 % BLOCK) / WORD));
                }
                words.get()?.record(at)
            }
            Page::Words(w) => w.record(at),
            Page::Bytes(b) => Some(b[at].load(Ordering::Relaxed)),
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
    /// Unique to this shadow among all ever made (see [`WordCursor`]).
    id: u64,
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
        static IDS: AtomicU64 = AtomicU64::new(1);
        Shadow {
            id: IDS.fetch_add(1, Ordering::Relaxed),
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

    /// `cell`'s contents, made by `make` the first time (`None` when `bytes` of shadow are
    /// past the budget).
    fn lazily<'c, T>(
        &self,
        cell: &'c OnceLock<T>,
        bytes: u64,
        make: impl FnOnce() -> T,
    ) -> Option<&'c T> {
        if let Some(v) = cell.get() {
            return Some(v);
        }
        if !self.reserve(bytes) {
            return None;
        }
        let mut mine = false;
        let v = cell.get_or_init(|| {
            mine = true;
            make()
        });
        if !mine {
            // Another thread made it meanwhile: its reservation counts.
            self.budget.release(bytes);
        }
        Some(v)
    }

    /// Page `index`, allocated on first touch (records of `grain`) and marked dirty.
    /// Inline: every word access asks for its page (a lockstep operation's lanes ask for
    /// one page again and again); the allocation is out of line.
    #[inline(always)]
    fn page(&self, index: u64, grain: Grain) -> Option<&Page> {
        let slot = self.pages.get(index as usize)?;
        let dirty = self.dirty.get(index as usize)?;
        if !dirty.load(Ordering::Relaxed) {
            dirty.store(true, Ordering::Relaxed);
        }
        match slot.get() {
            Some(p) => Some(p),
            None => self.first_touch(index, grain),
        }
    }

    /// Allocates page `index` (see [`Shadow::page`]).
    #[cold]
    #[inline(never)]
    fn first_touch(&self, index: u64, grain: Grain) -> Option<&Page> {
        let slot = self.pages.get(index as usize)?;
        let n = self.page_len(index);
        let born = &self.born_initialised[index as usize];
        let mut mine = false;
        let p = self.lazily(slot, Page::cost(grain, n), || {
            mine = true;
            Page::new(grain, n, self.fresh_record(index as usize))
        })?;
        if mine {
            // The host may have marked the page initialised after the records were made
            // (see `initialise`): one of the two sides sees the other's store.
            fence(Ordering::SeqCst);
            if born.load(Ordering::SeqCst) {
                p.map_records(self, |r| r | mar::INIT_BIT, Map::Always);
            }
        }
        Some(p)
    }

    /// The record of the aligned block at `offset` while it stands for all its words (the
    /// page allocated with block records if untouched); `None` when the block is split, its
    /// page holds word or byte records, it is not whole inside the buffer, or it has no
    /// shadow.
    #[inline]
    fn block(&self, offset: u64) -> Option<&AtomicU64> {
        if !offset.is_multiple_of(BLOCK) || offset.checked_add(BLOCK)? > self.len {
            return None;
        }
        match self.page(offset / PAGE, Grain::Blocks)? {
            Page::Blocks { blocks, .. } => {
                let b = &blocks[(offset % PAGE / BLOCK) as usize];
                (b.load(Ordering::Relaxed) != SPLIT).then_some(b)
            }
            _ => None,
        }
    }

    /// The record of the aligned word at `offset` while its block is one record (of a page
    /// that exists): what [`Shadow::word`] would split the block for. `None` for any other
    /// word. Allocates and splits nothing.
    pub fn whole_block_word(&self, offset: u64) -> Option<u64> {
        if !offset.is_multiple_of(WORD) || offset.checked_add(WORD)? > self.len {
            return None;
        }
        let page = self.pages.get((offset / PAGE) as usize)?.get()?;
        let Page::Blocks { blocks, .. } = page else {
            return None;
        };
        let b = blocks
            .get((offset % PAGE / BLOCK) as usize)?
            .load(Ordering::Acquire);
        (b != SPLIT).then(|| block_word(b, offset % BLOCK / WORD))
    }

    /// Checks and updates the records of the [`BLOCK`] bytes at `offset` (aligned) as one:
    /// `step(old)` gives the block's new record (word `k`'s: [`block_word`]; [`block_map`]
    /// makes it from the words' steps), or `None` when the caller wants to see the words'
    /// steps itself. `Some` (the block's old and new record) when the block took the step
    /// and stays one record; `None` when nothing changed and the caller must check the
    /// words one by one ([`Shadow::word`] splits the block): `step` said `None`, the block
    /// is split, or its page holds other records. `step` is pure: it runs again when another
    /// work-group's update lands first.
    #[inline]
    pub fn update_block(
        &self,
        offset: u64,
        mut step: impl FnMut(u64) -> Option<u64>,
    ) -> Option<(u64, u64)> {
        let cell = self.block(offset)?;
        let mut old = cell.load(Ordering::Acquire);
        loop {
            if old == SPLIT {
                return None;
            }
            let new = step(old).filter(|&n| is_block_record(n))?;
            if new == old {
                return Some((old, new));
            }
            match cell.compare_exchange_weak(old, new, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Some((old, new)),
                Err(now) => old = now,
            }
        }
    }

    /// The record of the aligned word at `offset` while it stands for all four of its bytes
    /// (the page allocated with word records if untouched, its block split if a block
    /// page's); `None` when the word is split, its page holds byte records, or it has no
    /// shadow.
    #[inline]
    pub fn word(&self, offset: u64) -> Option<&AtomicU64> {
        if !offset.is_multiple_of(WORD) {
            return None;
        }
        let w = self
            .block_words(offset)?
            .get((offset % BLOCK / WORD) as usize)?;
        (w.load(Ordering::Relaxed) != SPLIT).then_some(w)
    }

    /// The word records of the whole words of the [`BLOCK`] holding `offset`, as
    /// [`Shadow::word`] gets one (allocating the page, splitting the block): a caller that
    /// steps several words of one block looks their page up once. A word split into bytes
    /// holds `SPLIT` (its step says `None`). `None` when the block has no whole word or no
    /// word records.
    #[inline]
    pub fn block_words(&self, offset: u64) -> Option<&[AtomicU64]> {
        self.block_words_in(offset, Grain::Words)
    }

    /// [`Shadow::block_words`], an untouched page allocated with `grain`'s records.
    #[inline]
    fn block_words_in(&self, offset: u64, grain: Grain) -> Option<&[AtomicU64]> {
        let start = offset - offset % BLOCK;
        let whole = (self.len.checked_sub(start)? / WORD).min(BLOCK_WORDS) as usize;
        let at = (start % PAGE) as usize;
        let words = self.page(start / PAGE, grain)?.words_at(self, at)?;
        let first = at / WORD as usize;
        words
            .words
            .get(first..first + whole)
            .filter(|w| !w.is_empty())
    }

    /// [`Shadow::word`] without the page lookup while `cursor` is on the word's block (it
    /// is moved there otherwise): the accesses of a work-item, or of a lockstep operation's
    /// lanes, mostly stay in one block for a while. A word split into bytes holds `SPLIT`
    /// (its step says `None`).
    #[inline(always)]
    pub fn word_at<'s>(&'s self, cursor: &mut WordCursor, offset: u64) -> Option<&'s AtomicU64> {
        if !offset.is_multiple_of(WORD) {
            return None;
        }
        let start = offset - offset % BLOCK;
        if cursor.shadow != self.id || cursor.start != start {
            let words = self.block_words_in(start, cursor.grain)?;
            *cursor = WordCursor {
                shadow: self.id,
                start,
                words: words.as_ptr(),
                len: words.len(),
                grain: cursor.grain,
            };
        }
        let k = (offset % BLOCK / WORD) as usize;
        // SAFETY: the cursor was set above or by an earlier call on this same shadow (ids
        // are never reused) from `block_words`' slice of `len` records, which lives as long
        // as the shadow does: a page, once made, is never freed or moved (a `OnceLock` in a
        // boxed slice, holding boxed slices), and a split block's word records stay (a
        // block is never merged back). `'s` borrows the shadow, and `k < len`.
        (k < cursor.len).then(|| unsafe { &*cursor.words.add(k) })
    }

    /// Asks for the cache line of `offset`'s word record ahead of a [`Shadow::word`] (when
    /// its page has word records already; allocates nothing).
    #[inline]
    pub fn prefetch_word(&self, offset: u64) {
        let page = self
            .pages
            .get((offset / PAGE) as usize)
            .and_then(|p| p.get());
        if let Some(Page::Words(w)) = page {
            prefetch(w.words.get((offset % PAGE / WORD) as usize));
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
    /// or past the budget). Blocks it touches are split into words.
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
            let grain = if !bytewise && o.is_multiple_of(WORD) && end - o >= WORD {
                Grain::Words
            } else {
                Grain::Bytes
            };
            let Some(page) = self.page(index, grain) else {
                return;
            };
            let page_end = ((index + 1) * PAGE).min(end);
            while o < page_end {
                let at = (o % PAGE) as usize;
                let records = match page {
                    Page::Bytes(b) => &b[at..at + (page_end - o) as usize],
                    _ => {
                        let Some(words) = page.words_at(self, at) else {
                            return;
                        };
                        let whole = !bytewise && o.is_multiple_of(WORD) && page_end - o >= WORD;
                        let w = at / WORD as usize;
                        if w.is_multiple_of(8) && page_end - o > PREFETCH_AHEAD {
                            prefetch(words.words.get(w + PREFETCH_AHEAD as usize / WORD as usize));
                        }
                        if whole {
                            let word = &words.words[w];
                            if let Some((old, s)) = step_record(word, |old| step(o - offset, old)) {
                                done(o - offset, WORD, old, s);
                                o += WORD;
                                continue;
                            }
                        }
                        let Some(bytes) = words.split(self, w) else {
                            return;
                        };
                        let unit_end = (o - o % WORD + WORD).min(page_end);
                        &bytes[at % WORD as usize..(unit_end - o) as usize + at % WORD as usize]
                    }
                };
                for (c, x) in records.iter().zip(o..) {
                    if let Some((old, s)) = step_record(c, |old| step(x - offset, old)) {
                        done(x - offset, 1, old, s);
                    }
                }
                o += records.len() as u64;
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
        match self.pages[index].get() {
            None => Some(self.fresh_record(index)),
            Some(page) => page.record((offset % PAGE) as usize),
        }
    }

    /// Whether `keep` holds for the records of all of `offset..offset + len` (whole words),
    /// read without allocating a page or splitting a record: false where a byte has a
    /// record of its own (a byte page, a split word) or the range leaves the shadow. For a
    /// check that leaves the records as they are where it holds. `keep` asks of a record's
    /// item only whether it lies in a range (and anything of the rest): a block record's
    /// consecutive words, whose items are consecutive and the rest equal, are asked at their
    /// two ends only.
    #[inline(always)]
    pub fn words_all(&self, offset: u64, len: u64, keep: impl Fn(u64) -> bool) -> bool {
        if !offset.is_multiple_of(WORD) || len == 0 || !len.is_multiple_of(WORD) {
            return false;
        }
        let Some(end) = offset.checked_add(len).filter(|&e| e <= self.len) else {
            return false;
        };
        // Block by block: the words of `at..stop`, inside one block.
        let mut at = offset;
        while at < end {
            let stop = (at - at % BLOCK + BLOCK).min(end);
            let index = (at / PAGE) as usize;
            let (first, n) = (((at % PAGE) / WORD) as usize, ((stop - at) / WORD) as usize);
            let words = |w: &WordRecords| {
                w.words.get(first..first + n).is_some_and(|ws| {
                    ws.iter().all(|c| {
                        let r = c.load(Ordering::Acquire);
                        r != SPLIT && keep(r)
                    })
                })
            };
            let all = match self.pages.get(index).and_then(|p| p.get()) {
                None => keep(self.fresh_record(index)),
                Some(Page::Blocks {
                    blocks, words: w, ..
                }) => match blocks.get(first / BLOCK_WORDS as usize) {
                    Some(b) => match b.load(Ordering::Acquire) {
                        SPLIT => w.get().is_some_and(words),
                        b => {
                            let k = (at % BLOCK) / WORD;
                            keep(block_word(b, k)) && keep(block_word(b, k + n as u64 - 1))
                        }
                    },
                    None => false,
                },
                Some(Page::Words(w)) => words(w),
                Some(Page::Bytes(_)) => false,
            };
            if !all {
                return false;
            }
            at = stop;
        }
        true
    }

    /// Applies `f` to every record of the pages touched since the last call (untouched pages
    /// hold `fresh` or were already swept).
    fn for_each_touched(&self, f: impl Fn(u64) -> u64) {
        let touched = self.pages.iter().zip(self.dirty.iter());
        for (page, _) in touched.filter(|(_, d)| d.swap(false, Ordering::Relaxed)) {
            let Some(page) = page.get() else { continue };
            // A loop, not load-then-store: the host may mark bytes initialised from another
            // thread meanwhile, and that mark must survive.
            page.map_records(self, &f, Map::Always);
        }
    }

    /// Applies `f` to every allocated record while other work-groups may be accessing the
    /// buffer: a record that changed meanwhile belongs to a newer access and is left alone.
    pub fn update_allocated(&self, f: impl Fn(u64) -> u64) {
        for page in self.pages.iter().filter_map(|p| p.get()) {
            page.map_records(self, &f, Map::UnlessChanged);
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
            let init = |r: u64| r | mar::INIT_BIT;
            if let Some(page @ Page::Blocks { .. }) = self.pages[index as usize].get() {
                // Whole blocks stay blocks (the mark is the same for all their words).
                while o < upto {
                    let block_end = (o - o % BLOCK + BLOCK).min(upto);
                    if block_end - o == BLOCK {
                        page.map_block(self, (o % PAGE / BLOCK) as usize, &init, Map::Always);
                    } else {
                        self.update(
                            o,
                            block_end - o,
                            false,
                            |_, r| (init(r), ()),
                            |_, _, _, _| {},
                        );
                    }
                    o = block_end;
                }
                continue;
            }
            self.update(
                o,
                upto - o,
                false,
                |_, old| (init(old), ()),
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
mod tests;
