//! The records of a work-group's `__local` memory: one per 4-byte word while the word's bytes
//! share one (a word accessed whole: the usual case), one per byte once an access of another
//! shape (a byte, a half, an unaligned or copied access) splits the word. One group owns its
//! local memory, so unlike global memory's shadow these are plain values, not atomics.
//!
//! Performance: a lockstep operation over 16 words whose records are one block's
//! (`block_word`), or all equal (`Run::Same`: a tile row one item's read named), takes one step
//! for them (`LocalRecords::update_block`), as global blocks do; `mar::step_shifts` or
//! `mar::same_step_shifts` says when the one step is the sixteen. Local memory stores no block
//! records itself.

use crate::mar;
use crate::shadow::{self, BLOCK_WORDS};

/// Bytes one word record stands for.
const WORD: usize = 4;
/// A word record meaning "this word's bytes have records of their own". No record holds it
/// (a record naming no work-item is 0 or `INIT_BIT`; `mar::step` always names one).
const SPLIT: u64 = !mar::MAX_ITEM;

/// The records of [`BLOCK_WORDS`] consecutive words in one of the two shapes a lockstep
/// operation over consecutive lanes may check as one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Run {
    /// One block record's words (see [`shadow::block_word`]): word `k` named by the item `k`
    /// after the one it names (what consecutive lanes leave).
    Block(u64),
    /// Words with equal records (what one work-item's read of a row shared by a row of
    /// lanes leaves: every word names that item).
    Same(u64),
}

impl Run {
    /// The shape of `words` (unsplit), if they have one.
    fn of(words: &[u64]) -> Option<Run> {
        let first = *words.first()?;
        let is = |run: Run| (0..BLOCK_WORDS).all(|k| words.get(k as usize) == Some(&run.word(k)));
        if shadow::is_block_record(first) && is(Run::Block(first)) {
            Some(Run::Block(first))
        } else if is(Run::Same(first)) {
            Some(Run::Same(first))
        } else {
            None
        }
    }

    /// Word `k`'s record.
    pub(crate) fn word(self, k: u64) -> u64 {
        match self {
            Run::Block(rec) => shadow::block_word(rec, k),
            Run::Same(rec) => rec,
        }
    }
}

/// The records of one `__local` allocation of a group.
pub(crate) struct LocalRecords {
    /// Bytes of the allocation.
    len: usize,
    /// One record per word (the last one may be partial), or `SPLIT`.
    words: Vec<u64>,
    /// Byte records of the split words (`WORD` per word), allocated at the first split.
    bytes: Vec<u64>,
}

impl LocalRecords {
    pub(crate) fn new(len: usize) -> Self {
        LocalRecords {
            len,
            words: vec![0; len.div_ceil(WORD)],
            bytes: Vec::new(),
        }
    }

    /// Every byte back to "never accessed" (a new group). Byte records of split words are
    /// not cleared: a later split overwrites them.
    pub(crate) fn reset(&mut self) {
        // A variable the kernel does not use has no words: no call into `memset` for it
        // (every group of every launch restarts its state).
        if !self.words.is_empty() {
            self.words.fill(0);
        }
    }

    /// Records sized for a `len`-byte allocation (a new launch's group): these, kept as
    /// they are, when the length is the same, since the caller resets them next
    /// (`GroupState::relaunch` ends with `restart`); new ones otherwise.
    pub(crate) fn resize(&mut self, len: usize) {
        if len != self.len {
            *self = LocalRecords::new(len);
        }
    }

    /// The word indices of bytes `start..start + n`, when they are whole words inside the
    /// allocation.
    #[inline(always)]
    fn word_range(&self, start: usize, n: usize) -> Option<std::ops::Range<usize>> {
        let whole = start.is_multiple_of(WORD) && n.is_multiple_of(WORD);
        (whole && start.saturating_add(n) <= self.len).then(|| start / WORD..(start + n) / WORD)
    }

    /// The one record of the words holding bytes `start..start + n`, when the range is whole
    /// words, none split and all with equal records.
    #[inline(always)]
    pub(crate) fn uniform(&self, start: usize, n: usize) -> Option<u64> {
        match self.words.get(self.word_range(start, n)?)? {
            [first, rest @ ..] if *first != SPLIT && rest.iter().all(|r| r == first) => {
                Some(*first)
            }
            _ => None,
        }
    }

    /// The records of bytes `start..start + n` when the range is whole words, none split:
    /// one per word.
    #[inline(always)]
    pub(crate) fn whole_words(&mut self, start: usize, n: usize) -> Option<&mut [u64]> {
        let range = self.word_range(start, n)?;
        let words = self.words.get_mut(range)?;
        (!words.contains(&SPLIT)).then_some(words)
    }

    /// Applies `f` to the [`BLOCK_WORDS`] words from byte `start` (word-aligned) when their
    /// records have one of the shapes of a [`Run`], and stores the run `f` returns: (old,
    /// new) runs; `None`, nothing changed, when the words have neither shape, some is
    /// split, or `f` says `None`.
    pub(crate) fn update_block(
        &mut self,
        start: usize,
        f: impl FnOnce(Run) -> Option<Run>,
    ) -> Option<(Run, Run)> {
        let words = self.whole_words(start, BLOCK_WORDS as usize * WORD)?;
        let old = Run::of(words)?;
        let new = f(old).filter(|new| match *new {
            Run::Block(rec) => shadow::is_block_record(rec),
            Run::Same(rec) => rec != SPLIT,
        })?;
        for (k, w) in (0..BLOCK_WORDS).zip(words.iter_mut()) {
            *w = new.word(k);
        }
        Some((old, new))
    }

    /// The records of bytes `start..start + n` (up to the allocation's end), one per byte:
    /// the words they touch are split first.
    pub(crate) fn bytes(&mut self, start: usize, n: usize) -> &mut [u64] {
        let end = start.saturating_add(n).min(self.len);
        let start = start.min(end);
        if start == end {
            return &mut [];
        }
        if self.bytes.is_empty() {
            self.bytes = vec![0; self.words.len() * WORD];
        }
        for w in start / WORD..end.div_ceil(WORD) {
            let rec = std::mem::replace(&mut self.words[w], SPLIT);
            if rec != SPLIT {
                self.bytes[w * WORD..(w + 1) * WORD].fill(rec);
            }
        }
        &mut self.bytes[start..end]
    }

    /// Applies `f` to the record of every byte of `start..end` (a whole word's one record
    /// stands for its bytes; `f` must not depend on which byte it maps).
    pub(crate) fn map_range(&mut self, start: usize, end: usize, mut f: impl FnMut(u64) -> u64) {
        let end = end.min(self.len);
        let mut b = start.min(end);
        while b < end {
            let w = b / WORD;
            let whole = b.is_multiple_of(WORD) && (b + WORD).min(self.len) <= end;
            if whole && self.words[w] != SPLIT {
                self.words[w] = f(self.words[w]);
                b += WORD;
                continue;
            }
            let next = ((w + 1) * WORD).min(end);
            for rec in self.bytes(b, next - b) {
                *rec = f(*rec);
            }
            b = next;
        }
    }

    /// Applies `f` to every record (`f` must not depend on the byte).
    pub(crate) fn map_all(&mut self, f: impl FnMut(u64) -> u64) {
        self.map_range(0, self.len, f);
    }

    /// Byte `i`'s record (tests).
    #[cfg(test)]
    pub(crate) fn byte(&self, i: usize) -> u64 {
        match self.words[i / WORD] {
            SPLIT => self.bytes[i],
            rec => rec,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One operation on a 200-byte allocation.
    #[derive(Clone, Debug)]
    enum Op {
        /// Whole words from byte `4 * word`: each gets `value` + its index (a lockstep store).
        Words {
            word: usize,
            n: usize,
            value: u64,
        },
        Bytes {
            start: usize,
            n: usize,
            value: u64,
        },
        Map {
            start: usize,
            end: usize,
            add: u64,
        },
        /// `f` of a run: the old run's record with its item field moved by `shift`, stored
        /// as a block or as equal records (`same`).
        Block {
            word: usize,
            shift: u64,
            same: bool,
        },
        Reset,
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        // Values name items (low bits) or none (0), so some stores leave blocks.
        let value = prop_oneof![Just(0u64), Just(mar::INIT_BIT), 1..100u64];
        prop_oneof![
            4 => (0..50usize, 1..20usize, value.clone())
                .prop_map(|(word, n, value)| Op::Words { word, n, value }),
            2 => (0..204usize, 1..9usize, value)
                .prop_map(|(start, n, value)| Op::Bytes { start, n, value }),
            1 => (0..210usize, 0..210usize, 1..5u64)
                .prop_map(|(start, end, add)| Op::Map { start, end, add }),
            3 => (0..40usize, 0..3u64, proptest::bool::ANY)
                .prop_map(|(word, shift, same)| Op::Block { word, shift, same }),
            1 => Just(Op::Reset),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

        /// Whatever mix of word, byte, block and mapped updates and resets, every byte reads
        /// as the record a byte-per-record model holds, and a block update happens only
        /// over words that are one block's in the model.
        #[test]
        fn word_records_behave_like_one_record_per_byte(
            ops in proptest::collection::vec(op(), 1..60)
        ) {
            const LEN: usize = 202;
            let mut l = LocalRecords::new(LEN);
            let mut model = vec![0u64; LEN];
            for op in ops {
                match op {
                    Op::Words { word, n, value } => {
                        let (start, len) = (word * WORD, n * WORD);
                        if let Some(words) = l.whole_words(start, len) {
                            for (k, w) in words.iter_mut().enumerate() {
                                *w = value + k as u64;
                                model[start + WORD * k..start + WORD * (k + 1)].fill(*w);
                            }
                        } else {
                            // Only a range past the end or over a split word is refused.
                            let past = start + len > LEN;
                            let split = (word..word + n).any(|w| l.words.get(w) == Some(&SPLIT));
                            proptest::prop_assert!(past || split);
                        }
                    }
                    Op::Bytes { start, n, value } => {
                        let recs = l.bytes(start, n);
                        let end = (start + n).min(LEN);
                        proptest::prop_assert_eq!(recs.len(), end.saturating_sub(start));
                        for (i, r) in recs.iter_mut().enumerate() {
                            *r = value ^ i as u64;
                            model[start + i] = *r;
                        }
                    }
                    Op::Map { start, end, add } => {
                        // Kept below bit 48: never `SPLIT`, and `+ shift` cannot overflow.
                        let f = |r: u64| r.wrapping_mul(3).wrapping_add(add) & 0xFFFF_FFFF_FFFF;
                        l.map_range(start, end, f);
                        for r in model.iter_mut().take(end.min(LEN)).skip(start) {
                            *r = f(*r);
                        }
                    }
                    Op::Block { word, shift, same } => {
                        let start = word * WORD;
                        let moved = |run: Run| {
                            let rec = match run {
                                Run::Block(rec) | Run::Same(rec) => rec + shift,
                            };
                            Some(if same { Run::Same(rec) } else { Run::Block(rec) })
                        };
                        if let Some((old, new)) = l.update_block(start, moved) {
                            proptest::prop_assert_eq!(Some(new), moved(old));
                            for k in 0..BLOCK_WORDS {
                                let at = start + WORD * k as usize;
                                for b in &mut model[at..at + WORD] {
                                    proptest::prop_assert_eq!(*b, old.word(k));
                                    *b = new.word(k);
                                }
                            }
                        }
                    }
                    Op::Reset => {
                        l.reset();
                        model.fill(0);
                    }
                }
                for (i, want) in model.iter().enumerate() {
                    proptest::prop_assert_eq!(l.byte(i), *want, "byte {}", i);
                }
            }
        }
    }

    #[test]
    fn words_split_only_where_an_access_of_another_shape_touches_them() {
        let mut l = LocalRecords::new(10);
        l.whole_words(0, 8).expect("whole words").fill(5);
        assert_eq!(l.uniform(0, 8), Some(5));
        assert_eq!(l.uniform(2, 4), None, "not whole words");
        assert_eq!(l.uniform(8, 4), None, "past the end");
        assert_eq!(l.uniform(usize::MAX - 3, 4), None, "far past the end");
        assert!(l.bytes(usize::MAX, 8).is_empty());
        // A byte access splits its word only.
        l.bytes(5, 1)[0] = 7;
        assert_eq!(
            (0..8).map(|i| l.byte(i)).collect::<Vec<_>>(),
            [5, 5, 5, 5, 5, 7, 5, 5]
        );
        assert_eq!(l.uniform(0, 4), Some(5));
        assert!(l.whole_words(4, 4).is_none());
        assert!(l.whole_words(0, 4).is_some());
        // The partial last word: its two bytes.
        assert_eq!(l.bytes(8, 8).len(), 2);
        // Maps reach split and whole words alike; a range that cuts a word splits it.
        l.map_range(2, 9, |r| r + 1);
        assert_eq!(
            (0..10).map(|i| l.byte(i)).collect::<Vec<_>>(),
            [5, 5, 6, 6, 6, 8, 6, 6, 1, 0]
        );
        assert!(l.whole_words(0, 4).is_none());
        l.map_all(|r| r * 2);
        assert_eq!(l.byte(0), 10);
        assert_eq!(l.byte(9), 0);
        l.reset();
        assert!((0..10).all(|i| l.byte(i) == 0));
        assert_eq!(l.uniform(0, 8), Some(0));
    }
}
