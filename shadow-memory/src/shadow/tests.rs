//! Tests of the shadow's records: grains, splits, blocks, host marks and the budget.

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

/// [`Shadow::update_block`] with the words' steps.
fn by_words(
    s: &Shadow,
    offset: u64,
    mut step: impl FnMut(u64, u64) -> Option<u64>,
) -> Option<(u64, u64)> {
    s.update_block(offset, |old| block_map(old, &mut step))
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
fn lockstep_blocks_keep_one_record_until_an_access_of_another_shape() {
    let s = Shadow::new(2 * PAGE, false, ShadowBudget::new(u64::MAX));
    // Word `k` of block `b` written by item 1 + 16b + k (a group's lanes, in order).
    let write = |b: u64| {
        move |k: u64, old: u64| Some((old & mar::INIT_BIT) | 1 << 50 | (1 + b * BLOCK_WORDS + k))
    };
    for b in 0..2 * PAGE / BLOCK {
        assert!(by_words(&s, b * BLOCK, write(b)).is_some(), "block {b}");
    }
    assert_eq!(
        s.allocated_bytes() as u64,
        2 * PAGE / BLOCK * 8,
        "1/8 byte per byte"
    );
    let want = |o: u64| 1 << 50 | (1 + o / WORD);
    assert_eq!(s.record(4 * BLOCK + 9), Some(want(4 * BLOCK + 9)));
    // Host writes and resets keep blocks whole.
    s.initialise(0, PAGE);
    assert_eq!(s.allocated_bytes() as u64, 2 * PAGE / BLOCK * 8);
    assert_eq!(s.record(PAGE - 1), Some(mar::INIT_BIT | want(PAGE - 1)));
    // A lockstep operation whose words differ by more than their items is not a block's.
    assert!(by_words(&s, PAGE, |k, old| Some(old + (k % 2) * (1 << 40))).is_none());
    assert!(by_words(&s, PAGE, |k, old| (k != 3).then_some(old)).is_none());
    assert_eq!(s.record(PAGE + 12), Some(want(PAGE + 12)), "left as it was");
    // A word access splits its block only: word records for the page, once.
    let cell = s.word(PAGE + 2 * BLOCK + 8).expect("word record");
    assert_eq!(cell.load(Ordering::Relaxed), want(PAGE + 2 * BLOCK + 8));
    assert_eq!(
        s.allocated_bytes() as u64,
        2 * PAGE / BLOCK * 8 + PAGE / WORD * 8
    );
    assert!(
        by_words(&s, PAGE + 2 * BLOCK, write(PAGE / BLOCK + 2)).is_none(),
        "split"
    );
    assert!(by_words(&s, PAGE + 3 * BLOCK, write(PAGE / BLOCK + 3)).is_some());
    for o in PAGE..2 * PAGE {
        assert_eq!(s.record(o), Some(want(o)), "byte {o}");
    }
    s.reset();
    assert_eq!(s.record(PAGE + 2 * BLOCK + 8), Some(0));
    assert_eq!(s.record(8), Some(mar::INIT_BIT));
    // A word access to an untouched page gives it word records, never blocks.
    let t = Shadow::new(PAGE, false, ShadowBudget::new(u64::MAX));
    assert!(t.word(0).is_some());
    assert!(by_words(&t, 0, write(0)).is_none());
}

#[test]
fn a_blocks_word_records_are_the_words_records_one_by_one() {
    // Two pages and a tail of one whole word and two bytes.
    let s = Shadow::new(2 * PAGE + 6, false, ShadowBudget::new(u64::MAX));
    set(&s, 0, 2 * PAGE + 6, 7);
    for offset in [0, 20, BLOCK + 60, PAGE + 4] {
        let words = s.block_words(offset).expect("word records");
        assert_eq!(words.len() as u64, BLOCK_WORDS);
        let start = offset - offset % BLOCK;
        for (k, w) in words.iter().enumerate() {
            let cell = s.word(start + k as u64 * WORD).expect("word");
            assert!(std::ptr::eq(w, cell), "word {k} of the block at {start}");
        }
    }
    // The last block has its whole words only; past the end there are none.
    assert_eq!(s.block_words(2 * PAGE + 5).map(<[_]>::len), Some(1));
    assert!(s.block_words(2 * PAGE + BLOCK).is_none());
    // A word split into bytes shows `SPLIT`, which `update_word` refuses.
    set(&s, PAGE + 9, 1, 3);
    let words = s.block_words(PAGE).expect("word records");
    assert!(Shadow::update_word(&words[2], |r| (r, ())).is_none());
    assert!(Shadow::update_word(&words[1], |r| (r, ())).is_some());
    // A block record is split into words for it, keeping its words' records.
    let b = Shadow::new(PAGE, false, ShadowBudget::new(u64::MAX));
    let item = |k: u64| 1 << 50 | (1 + k);
    assert!(by_words(&b, BLOCK, |k, _| Some(item(k))).is_some());
    let words = b.block_words(BLOCK + 8).expect("split");
    let recs: Vec<u64> = words.iter().map(|w| w.load(Ordering::Relaxed)).collect();
    assert_eq!(recs, (0..BLOCK_WORDS).map(item).collect::<Vec<_>>());
    assert!(by_words(&b, BLOCK, |k, _| Some(item(k))).is_none(), "split");
    // A cursor gives each word's record, moving between blocks and between shadows.
    let mut cursor = WordCursor::default();
    for offset in [4, 8, BLOCK + 4, 0, PAGE + 12, 2 * PAGE, PAGE + 60] {
        let (s_cell, b_cell) = (
            s.word_at(&mut cursor, offset),
            b.word_at(&mut cursor, offset),
        );
        assert!(
            std::ptr::eq(s_cell.unwrap(), s.word(offset).unwrap()),
            "{offset}"
        );
        match b.word(offset) {
            Some(cell) => assert!(std::ptr::eq(b_cell.unwrap(), cell), "{offset}"),
            None => assert!(b_cell.is_none(), "{offset}: past the end"),
        }
    }
    assert!(
        s.word_at(&mut cursor, 2 * PAGE + 4).is_none(),
        "not a whole word"
    );
    assert!(s.word_at(&mut cursor, 6).is_none(), "not aligned");
}

#[test]
fn a_lanes_word_access_first_in_its_page_splits_its_block_only() {
    let item = |b: u64| move |k: u64, _: u64| Some(1 << 50 | (1 + b * BLOCK_WORDS + k));
    // A work-item's word access: the page starts with word records (no block of it is
    // one record then).
    let s = Shadow::new(PAGE, false, ShadowBudget::new(u64::MAX));
    assert!(s.word_at(&mut WordCursor::default(), 4).is_some());
    assert_eq!(s.allocated_bytes() as u64, PAGE / WORD * 8);
    assert!(by_words(&s, BLOCK, item(1)).is_none());
    // A lockstep lane's (the border column of a 2-D group, first in its page): the
    // page starts with block records and only the lane's block is split, so the
    // rows of consecutive lanes after it step one record per block.
    let s = Shadow::new(PAGE, false, ShadowBudget::new(u64::MAX));
    let cell = s
        .word_at(&mut WordCursor::for_lanes(), 4)
        .expect("a word record");
    assert!(std::ptr::eq(cell, s.word(4).expect("split block")));
    assert!(
        by_words(&s, 0, item(0)).is_none(),
        "the lane's block is split"
    );
    for b in 1..PAGE / BLOCK {
        assert!(by_words(&s, b * BLOCK, item(b)).is_some(), "block {b}");
    }
    // A whole block's word records are read from its record, without splitting it.
    assert_eq!(s.whole_block_word(BLOCK + 8), item(1)(2, 0));
    assert!(s.whole_block_word(8).is_none(), "split");
    assert!(s.whole_block_word(BLOCK + 2).is_none(), "not a word");
    assert!(by_words(&s, BLOCK, item(1)).is_some(), "still one record");
    assert_eq!(
        s.allocated_bytes() as u64,
        PAGE / BLOCK * 8 + PAGE / WORD * 8,
        "block records, and word records for the split block's page"
    );
}

#[test]
fn words_all_of_a_block_record_asks_its_ends_as_every_word_would() {
    // Block 1's words name items 17..33 (one record); block 0's are split into words.
    let s = Shadow::new(PAGE, false, ShadowBudget::new(u64::MAX));
    let item = |k: u64, _: u64| Some(1 << 50 | (17 + k));
    assert!(by_words(&s, BLOCK, item).is_some());
    assert!(s.word(4).is_some());
    // Every range of whole words inside the two blocks, against a test of the item's
    // range, answered as word by word.
    for (lo, hi) in [
        (0, u32::MAX),
        (17, 33),
        (18, 33),
        (17, 32),
        (20, 25),
        (40, 50),
    ] {
        let keep = |r: u64| r != 0 && (lo..hi).contains(&mar::item_of(r));
        for start in (0..2 * BLOCK).step_by(WORD as usize) {
            for end in (start + WORD..=2 * BLOCK).step_by(WORD as usize) {
                let each = (start..end)
                    .step_by(WORD as usize)
                    .all(|o| s.whole_block_word(o).or(s.record(o)).is_some_and(keep));
                assert_eq!(
                    s.words_all(start, end - start, keep),
                    each,
                    "{start}..{end} items {lo}..{hi}"
                );
            }
        }
    }
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

#[test]
fn concurrent_block_updates_and_splits_lose_nothing() {
    // Even threads add their bit to every block as one (word by word once it is split);
    // odd threads add theirs to every other word alone, splitting blocks meanwhile.
    let s = Shadow::new(PAGE, false, ShadowBudget::new(u64::MAX));
    for b in 0..PAGE / BLOCK {
        assert!(by_words(&s, b * BLOCK, |k, _| Some(1 + b * BLOCK_WORDS + k)).is_some());
    }
    let bit = |t: u64, round: u64| 1u64 << (30 + t * 4 + round);
    std::thread::scope(|scope| {
        for t in 0..8u64 {
            let s = &s;
            scope.spawn(move || {
                for round in 0..4 {
                    let m = bit(t, round);
                    for b in 0..PAGE / BLOCK {
                        let at = b * BLOCK;
                        if t % 2 == 1 {
                            for w in (0..BLOCK_WORDS).step_by(2) {
                                s.update(
                                    at + w * WORD,
                                    WORD,
                                    false,
                                    |_, r| (r | m, ()),
                                    |_, _, _, _| {},
                                );
                            }
                        } else if by_words(s, at, |_, r| Some(r | m)).is_none() {
                            s.update(at, BLOCK, false, |_, r| (r | m, ()), |_, _, _, _| {});
                        }
                    }
                }
            });
        }
    });
    let even = (0..8).filter(|t| t % 2 == 0);
    let all_even = even
        .flat_map(|t| (0..4).map(move |r| bit(t, r)))
        .fold(0, |a, b| a | b);
    let all_odd = (0..8).filter(|t| t % 2 == 1);
    let all_odd = all_odd
        .flat_map(|t| (0..4).map(move |r| bit(t, r)))
        .fold(0, |a, b| a | b);
    for o in 0..PAGE {
        let w = o / WORD;
        let odd = if w.is_multiple_of(2) { all_odd } else { 0 };
        assert_eq!(s.record(o), Some((1 + w) | all_even | odd), "byte {o}");
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
    /// A lockstep operation over block `index`: word `k` by item `base + k`; `shape` 1
    /// makes word 3's record differ by more than its item, 2 makes the caller want to
    /// see word 5's step (both go word by word).
    Block {
        index: u64,
        base: u64,
        salt: u64,
        shape: u8,
    },
    /// `update_allocated` of a function that depends on the record's item.
    MapAllocated {
        modulus: u64,
    },
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
        6 => (
            0..(3 * PAGE + 8) / BLOCK,
            prop_oneof![Just(0u64), 1..1000u64, mar::MAX_ITEM - 20..mar::MAX_ITEM],
            1..1000u64,
            prop_oneof![6 => Just(0u8), 1 => Just(1u8), 1 => Just(2u8)],
        )
            .prop_map(|(index, base, salt, shape)| Step::Block { index, base, salt, shape }),
        1 => (2..5u64).prop_map(|modulus| Step::MapAllocated { modulus }),
    ]
}

/// The new record of word `k` of a [`Step::Block`] (`None`: the caller wants to see it).
fn block_step(old: u64, k: u64, base: u64, salt: u64, shape: u8, whole: bool) -> Option<u64> {
    if shape == 2 && k == 5 && !whole {
        return None;
    }
    // Never `SPLIT`: bit 62 stays clear.
    let mut fields = ((old & !mar::MAX_ITEM) ^ (salt << 30)) & !(1 << 62);
    if shape == 1 && k == 3 {
        fields ^= 1 << 40;
    }
    Some(fields | ((base + k) & mar::MAX_ITEM))
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// Whatever mix of block, whole-word, partial and bytewise updates, host writes,
    /// resets and maps, every byte reads as the record a byte-per-record shadow would
    /// hold, and every unit `update` reports covers bytes whose records were equal.
    #[test]
    fn block_and_word_records_behave_like_one_record_per_byte(
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
                Step::Block { index, base, salt, shape } => {
                    let at = index * BLOCK;
                    let one = by_words(&s, at, |k, old| {
                        block_step(old, k, base, salt, shape, false)
                    }).is_some();
                    if !one {
                        // As the caller does: word by word.
                        s.update(at, BLOCK, false, |i, old| {
                            (block_step(old, i / WORD, base, salt, shape, true).unwrap_or(old), ())
                        }, |_, _, _, _| {});
                    }
                    for b in at..(at + BLOCK).min(len) {
                        let old = model[b as usize];
                        let k = (b - at) / WORD;
                        model[b as usize] = block_step(old, k, base, salt, shape, true).unwrap_or(old);
                    }
                    let wanted_one = shape == 0
                        && at + BLOCK <= len
                        && (base == 0 || base + BLOCK_WORDS - 1 <= mar::MAX_ITEM);
                    if one {
                        proptest::prop_assert!(wanted_one, "a block update of shape {}", shape);
                    }
                }
                Step::MapAllocated { modulus } => {
                    // Like ageing: records that name no item stay as they are.
                    let f = |r: u64| {
                        let item = mar::item_of(r) as u64;
                        if item != 0 && item.is_multiple_of(modulus) { r ^ 1 << 41 } else { r }
                    };
                    s.update_allocated(f);
                    let allocated = |b: u64| s.pages[(b / PAGE) as usize].get().is_some();
                    for b in 0..len {
                        if allocated(b) {
                            model[b as usize] = f(model[b as usize]);
                        }
                    }
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
