//! Tests of the record step: one unit test per rule, then properties against a model.

use super::*;

/// Who accesses, in tests (also `pairs`'s).
pub(crate) fn me(item: u32, group: u32) -> Accessor {
    // Groups of 4 items, launch items 1..=16.
    Accessor {
        item,
        group_lo: 1 + group * 4,
        group_hi: 5 + group * 4,
        launch_lo: 1,
        launch_hi: 17,
        actor: 0,
        actor_since: None,
    }
}

#[test]
fn pack_round_trips_every_field() {
    let v = Fields {
        item: MAX_ITEM as u32,
        site: MAX_SITE as u16,
        one_site: true,
        epoch: 100,
        last: Op::Atomic,
        e: 0b101,
        many: true,
        h: 0b1000,
        o: 0b1110,
        other_kernel: true,
        sv_e: true,
        sv_o: true,
        init: true,
    }
    .pack();
    let r = Rec(v);
    assert_eq!(r.item() as u64, MAX_ITEM);
    assert_eq!(r.site() as u32, MAX_SITE);
    assert_eq!(r.epoch(), 100);
    assert_eq!(r.last(), Some(Op::Atomic));
    assert_eq!(
        (r.e(), r.many(), r.h(), r.o()),
        (0b101, true, 0b1000, 0b1110)
    );
    assert!(r.other_kernel() && r.sv_e() && r.sv_o() && r.one_site());
    assert_eq!(reset(v), INIT_BIT);
}

#[test]
fn read_after_write_by_other_item_conflicts_and_same_item_does_not() {
    let w = step(INITIALISED, &me(1, 0), 7, 0, Op::Write, Stored::New);
    assert!(w.conflicts.first().is_none());
    let own = step(w.new, &me(1, 0), 8, 0, Op::Read, Stored::New);
    assert!(own.conflicts.first().is_none());
    let other = step(w.new, &me(2, 0), 8, 0, Op::Read, Stored::New);
    let c = other.conflicts.first().unwrap();
    assert_eq!(c.first.op, Op::Write);
    assert_eq!(c.first.who, Some((1, 7)));
    assert_eq!(c.scope, Scope::IntraGroup);
    // A later epoch (barrier in between) orders them.
    assert!(step(w.new, &me(2, 0), 8, 1, Op::Read, Stored::New)
        .conflicts
        .first()
        .is_none());
    // Another group is never ordered by that barrier.
    let g = step(w.new, &me(5, 1), 8, 1, Op::Read, Stored::New)
        .conflicts
        .first()
        .unwrap();
    assert_eq!(g.scope, Scope::InterGroup);
}

#[test]
fn many_readers_then_write_by_one_of_them_conflicts_with_unknown_reader() {
    let read = |who: Option<(u32, u16)>| Party { op: Op::Read, who };
    let a = step(INITIALISED, &me(1, 0), 1, 0, Op::Read, Stored::New).new;
    let b = step(a, &me(2, 0), 1, 0, Op::Read, Stored::New);
    assert!(b.conflicts.first().is_none());
    // The record still names the first reader, so the other's write can name it.
    let w = step(b.new, &me(2, 0), 2, 0, Op::Write, Stored::New)
        .conflicts
        .first()
        .unwrap();
    assert_eq!(w.first, read(Some((1, 1))));
    // The first reader itself writing: the other reader is not in the record, but every
    // read of the interval was at site 1, so the line is known.
    let w = step(b.new, &me(1, 0), 2, 0, Op::Write, Stored::New)
        .conflicts
        .first()
        .unwrap();
    assert_eq!(w.first, read(Some((0, 1))));
    // Readers at two sites: nothing is known of the other one.
    let c = step(a, &me(2, 0), 5, 0, Op::Read, Stored::New).new;
    let w = step(c, &me(1, 0), 2, 0, Op::Write, Stored::New)
        .conflicts
        .first()
        .unwrap();
    assert_eq!(w.first, read(None));
    // Many plain readers, then another read: fine.
    assert!(step(b.new, &me(3, 0), 1, 0, Op::Read, Stored::New)
        .conflicts
        .first()
        .is_none());
}

#[test]
fn plain_read_after_atomics_by_several_items_races() {
    let a = step(INITIALISED, &me(1, 0), 1, 0, Op::Atomic, Stored::New).new;
    let b = step(a, &me(2, 0), 1, 0, Op::Atomic, Stored::New);
    assert!(b.conflicts.first().is_none());
    let r = step(b.new, &me(1, 0), 3, 0, Op::Read, Stored::New)
        .conflicts
        .first()
        .unwrap();
    assert_eq!((r.first.op, r.first.who), (Op::Atomic, Some((0, 1))));
    let r = step(b.new, &me(2, 0), 3, 0, Op::Read, Stored::New)
        .conflicts
        .first()
        .unwrap();
    assert_eq!((r.first.op, r.first.who), (Op::Atomic, Some((1, 1))));
}

#[test]
fn uninitialised_read_only_for_plain_reads_of_unwritten_bytes() {
    assert!(step(0, &me(1, 0), 1, 0, Op::Read, Stored::New).uninit);
    let w = step(0, &me(1, 0), 1, 0, Op::Write, Stored::New).new;
    assert!(!step(w, &me(1, 0), 1, 0, Op::Read, Stored::New).uninit);
    assert!(!step(0, &me(1, 0), 1, 0, Op::Atomic, Stored::New).uninit);
}

/// Item 0's plain write is not forgotten when its own atomic follows.
#[test]
fn own_atomic_after_own_write_keeps_the_write_for_others() {
    let w = step(INITIALISED, &me(1, 0), 1, 0, Op::Write, Stored::New).new;
    let a = step(w, &me(1, 0), 2, 0, Op::Atomic, Stored::New);
    assert!(a.conflicts.first().is_none());
    let c = step(a.new, &me(2, 0), 2, 0, Op::Atomic, Stored::New)
        .conflicts
        .first()
        .unwrap();
    assert_eq!(c.first.op, Op::Write);
    assert_eq!(c.first.who, Some((1, 1)));
    // After a barrier the write is ordered.
    assert!(step(a.new, &me(2, 0), 2, 1, Op::Atomic, Stored::New)
        .conflicts
        .first()
        .is_none());
}

/// An atomic that only reads (failed compare-exchange, atomic load)
/// races with plain writes only, before or after it.
#[test]
fn atomic_reads_race_with_plain_writes_only() {
    let ar = |rec: u64, item: u32, group: u32, epoch: u8| {
        step(rec, &me(item, group), 9, epoch, Op::AtomicRead, Stored::New)
    };
    let r = step(INITIALISED, &me(1, 0), 1, 0, Op::Read, Stored::New).new;
    assert!(ar(r, 2, 0, 0).conflicts.first().is_none());
    let a = step(INITIALISED, &me(1, 0), 1, 0, Op::Atomic, Stored::New).new;
    assert!(ar(a, 2, 0, 0).conflicts.first().is_none());
    let w = step(INITIALISED, &me(1, 0), 1, 0, Op::Write, Stored::New).new;
    let c = ar(w, 2, 0, 0).conflicts.first().unwrap();
    assert_eq!(c.first.op, Op::Write);
    // A write hidden behind an atomic in the epoch flags still counts.
    let wa = step(w, &me(3, 0), 3, 0, Op::Atomic, Stored::New).new;
    assert!(ar(wa, 2, 0, 0).conflicts.first().is_some());

    // After it: a plain write races with it, in the group and across groups, a plain
    // read or an atomic does not.
    for (item, group) in [(2, 0), (5, 1)] {
        let x = ar(INITIALISED, 1, 0, 0).new;
        let c = step(x, &me(item, group), 4, 0, Op::Write, Stored::New)
            .conflicts
            .first()
            .unwrap();
        assert_eq!((c.first.op, c.first.who), (Op::AtomicRead, Some((1, 9))));
        assert_eq!(c.first.op.name(), "atomic");
        assert!(step(x, &me(item, group), 4, 0, Op::Read, Stored::New)
            .conflicts
            .first()
            .is_none());
        assert!(step(x, &me(item, group), 4, 0, Op::Atomic, Stored::New)
            .conflicts
            .first()
            .is_none());
        assert!(ar(x, item, group, 0).conflicts.first().is_none());
    }
    // Its own item's later write is ordered after it; a barrier orders the group's.
    let x = ar(INITIALISED, 1, 0, 0).new;
    assert!(step(x, &me(1, 0), 4, 0, Op::Write, Stored::New)
        .conflicts
        .first()
        .is_none());
    assert!(step(x, &me(2, 0), 4, 1, Op::Write, Stored::New)
        .conflicts
        .first()
        .is_none());
    // It reads: it makes no byte initialised.
    assert_eq!(ar(0, 1, 0, 0).new & INIT_BIT, 0);
}

/// An atomic read that is not the record's last access is still found: by the epoch
/// flags in the group, by the group flags (H, then O) across groups.
#[test]
fn atomic_reads_behind_other_accesses_still_race_with_writes() {
    // Items 1 and 2 atomically read; item 3 reads; group 1 (item 5) writes.
    let x = step(INITIALISED, &me(1, 0), 1, 0, Op::AtomicRead, Stored::New).new;
    let x = step(x, &me(2, 0), 2, 0, Op::AtomicRead, Stored::New).new;
    let c = step(x, &me(3, 0), 3, 0, Op::Write, Stored::New)
        .conflicts
        .first()
        .unwrap();
    assert_eq!(c.first.op, Op::AtomicRead);
    let c = step(x, &me(5, 1), 3, 0, Op::Write, Stored::New)
        .conflicts
        .first()
        .unwrap();
    assert_eq!((c.first.op, c.scope), (Op::AtomicRead, Scope::InterGroup));
    // Group 1 reads (no race); group 2 (item 9) writes: the atomic read is in O now.
    let y = step(x, &me(5, 1), 4, 0, Op::Read, Stored::New);
    assert!(y.conflicts.first().is_none());
    let c = step(y.new, &me(9, 2), 5, 0, Op::Write, Stored::New)
        .conflicts
        .first()
        .unwrap();
    assert_eq!(c.first.op, Op::Read);
    let z = step(x, &me(5, 1), 4, 0, Op::AtomicRead, Stored::New).new;
    let z = step(z, &me(9, 2), 4, 0, Op::AtomicRead, Stored::New).new;
    let c = step(z, &me(13, 3), 5, 0, Op::Write, Stored::New)
        .conflicts
        .first()
        .unwrap();
    assert_eq!(c.first.op, Op::AtomicRead);
    // An atomic read after another item's read keeps the reader named: a later atomic
    // races with the read.
    let r = step(INITIALISED, &me(1, 0), 1, 0, Op::Read, Stored::New).new;
    let r = step(r, &me(2, 0), 2, 0, Op::AtomicRead, Stored::New).new;
    let c = step(r, &me(3, 0), 3, 0, Op::Atomic, Stored::New)
        .conflicts
        .first()
        .unwrap();
    assert_eq!((c.first.op, c.first.who), (Op::Read, Some((1, 1))));
}

/// A write after another group's write and a third group's read races with both: one
/// conflict per race kind, whichever of them the record names last.
#[test]
fn a_write_reports_each_race_kind_it_is_in() {
    for reads_last in [false, true] {
        let w = |rec| step(rec, &me(1, 0), 1, 0, Op::Write, Stored::New).new;
        let r = |rec| step(rec, &me(5, 1), 2, 0, Op::Read, Stored::New).new;
        let x = if reads_last {
            r(w(INITIALISED))
        } else {
            w(r(INITIALISED))
        };
        let s = step(x, &me(9, 2), 3, 0, Op::Write, Stored::New);
        let ww = s.conflicts.get(RaceKind::WriteWrite).unwrap();
        let rw = s.conflicts.get(RaceKind::ReadWrite).unwrap();
        assert_eq!((ww.first.op, rw.first.op), (Op::Write, Op::Read));
        assert!(s.conflicts.get(RaceKind::AtomicPlain).is_none());
    }
}

#[test]
fn an_earlier_access_covers_what_its_later_kinds_race_with() {
    assert!(covers(Op::Write, Op::Read) && covers(Op::Write, Op::Atomic));
    assert!(covers(Op::Read, Op::AtomicRead) && covers(Op::Atomic, Op::AtomicRead));
    assert!(!covers(Op::Read, Op::Atomic) && !covers(Op::Atomic, Op::Read));
    assert!(!covers(Op::AtomicRead, Op::Read) && !covers(Op::Read, Op::Write));
    for k in Op::ALL {
        assert!(covers(k, k));
        assert_eq!(Op::from_last(k.to_last()), k);
    }
}

/// Item 0 reads, then increments; other items' increments race with the read.
#[test]
fn own_atomic_after_own_read_keeps_the_read_for_others() {
    let r = step(INITIALISED, &me(1, 0), 1, 0, Op::Read, Stored::New).new;
    let a = step(r, &me(1, 0), 2, 0, Op::Atomic, Stored::New).new;
    let c = step(a, &me(2, 0), 2, 0, Op::Atomic, Stored::New)
        .conflicts
        .first()
        .unwrap();
    assert_eq!(c.first.op, Op::Read);
    // Two items' atomics alone never race.
    let a1 = step(INITIALISED, &me(1, 0), 2, 0, Op::Atomic, Stored::New).new;
    let a2 = step(a1, &me(2, 0), 2, 0, Op::Atomic, Stored::New);
    assert!(a2.conflicts.first().is_none());
    assert!(step(a2.new, &me(1, 0), 2, 0, Op::Atomic, Stored::New)
        .conflicts
        .first()
        .is_none());
}

/// Never-written bytes have no value to store again.
#[test]
fn same_value_write_is_benign_only_over_initialised_bytes() {
    let undefined = step(0, &me(1, 0), 1, 0, Op::Write, Stored::Same).new;
    let c = step(undefined, &me(2, 0), 1, 0, Op::Write, Stored::Same)
        .conflicts
        .first()
        .unwrap();
    assert!(c.benign, "the second write stores what the first wrote");
    let read = step(0, &me(1, 0), 1, 0, Op::Read, Stored::New).new;
    let c = step(read, &me(2, 0), 1, 0, Op::Write, Stored::Back)
        .conflicts
        .first()
        .unwrap();
    assert!(!c.benign, "a write over undefined bytes is a real race");
    let read = step(INITIALISED, &me(1, 0), 1, 0, Op::Read, Stored::New).new;
    let c = step(read, &me(2, 0), 1, 0, Op::Write, Stored::Back)
        .conflicts
        .first()
        .unwrap();
    assert!(c.benign);
}

/// A read racing a write that stored what was there on this input is a data race (the next
/// input stores another value); only writes that put back what their work-item read there
/// make it benign.
#[test]
fn a_read_is_benign_only_beside_writes_that_put_back_what_was_there() {
    let race = |earlier: u64, who: Accessor, op: Op, stored: Stored| {
        step(earlier, &who, 2, 0, op, stored)
            .conflicts
            .first()
            .unwrap()
    };
    let same = step(INITIALISED, &me(1, 0), 1, 0, Op::Write, Stored::Same).new;
    let c = race(same, me(2, 0), Op::Read, Stored::New);
    assert!(
        !c.benign && c.first.op == Op::Write,
        "a same value by chance"
    );
    let back = step(INITIALISED, &me(1, 0), 1, 0, Op::Write, Stored::Back).new;
    let c = race(back, me(2, 0), Op::Read, Stored::New);
    assert!(c.benign && c.first.op == Op::Write);
    // The write after the read, the same way round.
    let read = step(INITIALISED, &me(1, 0), 1, 0, Op::Read, Stored::New).new;
    assert!(!race(read, me(2, 0), Op::Write, Stored::Same).benign);
    assert!(race(read, me(2, 0), Op::Write, Stored::Back).benign);
    // Two writes of what was there are benign whatever stored it.
    assert!(race(same, me(2, 0), Op::Write, Stored::Same).benign);
    assert!(race(back, me(2, 0), Op::Write, Stored::Same).benign);
    assert!(!race(back, me(2, 0), Op::Write, Stored::New).benign);
    // A put-back racing an atomic may undo it: not benign.
    let atomic = step(INITIALISED, &me(1, 0), 1, 0, Op::Atomic, Stored::New).new;
    assert!(!race(atomic, me(2, 0), Op::Write, Stored::Back).benign);
    let changed = step(INITIALISED, &me(1, 0), 1, 0, Op::Write, Stored::New).new;
    assert!(!race(changed, me(2, 0), Op::Read, Stored::New).benign);
    // A value-changing write before the barrier does not spoil the next interval...
    let next = step(changed, &me(1, 0), 1, 1, Op::Write, Stored::Back).new;
    let c = step(next, &me(2, 0), 2, 1, Op::Read, Stored::New)
        .conflicts
        .first()
        .unwrap();
    assert!(c.benign);
    // ...but another group is not ordered by that barrier.
    let c = race(next, me(5, 1), Op::Read, Stored::New);
    assert!(!c.benign && c.scope == Scope::InterGroup);
    // Put-back writes of another group, then a read: benign too.
    let g = step(INITIALISED, &me(5, 1), 1, 0, Op::Write, Stored::Back).new;
    let c = race(g, me(1, 0), Op::Read, Stored::New);
    assert!(c.benign && c.scope == Scope::InterGroup);
}

#[test]
fn aging_keeps_old_records_old_across_the_7_bit_wrap() {
    let w = step(INITIALISED, &me(1, 0), 1, 3, Op::Write, Stored::New).new;
    let aged = age(w, 3 + AGE_EVERY);
    // 128 epochs after the write the raw epoch would match again; the aged one does not.
    assert!(step(aged, &me(2, 0), 1, 3 + 128, Op::Read, Stored::New)
        .conflicts
        .first()
        .is_none());
    assert!(step(w, &me(2, 0), 1, 3 + 128, Op::Read, Stored::New)
        .conflicts
        .first()
        .is_some());
}

/// Property tests: the record step against a model that remembers every access.
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Items 1..=4: items 1 and 2 form group 0, items 3 and 4 group 1 (one launch).
    fn who(item: u32) -> Accessor {
        let g = (item - 1) / 2;
        Accessor {
            item,
            group_lo: 1 + 2 * g,
            group_hi: 3 + 2 * g,
            launch_lo: 1,
            launch_hi: 5,
            actor: 0,
            actor_since: None,
        }
    }

    #[derive(Clone, Copy, Debug)]
    enum Event {
        Access { item: u32, op: Op },
        Barrier { group: u32 },
    }

    fn event() -> impl Strategy<Value = Event> {
        prop_oneof![
            4 => (1u32..=4, 0u8..3).prop_map(|(item, op)| Event::Access {
                item,
                op: [Op::Read, Op::Write, Op::Atomic][op as usize],
            }),
            1 => (0u32..2).prop_map(|group| Event::Barrier { group }),
        ]
    }

    /// Runs the events through `step`; returns whether any access was reported, and the
    /// model's verdict: some two accesses by different items conflict and are not ordered
    /// (a barrier of their group between them orders same-group accesses only).
    fn run(events: &[Event]) -> (bool, bool) {
        let mut rec = INITIALISED;
        let mut epochs = [0u8; 2];
        let mut seen: Vec<(u32, Op, u8)> = Vec::new();
        let (mut reported, mut racy) = (false, false);
        for e in events {
            match *e {
                Event::Barrier { group } => epochs[group as usize] += 1,
                Event::Access { item, op } => {
                    let me = who(item);
                    let g = ((item - 1) / 2) as usize;
                    let s = step(rec, &me, item as u16, epochs[g], op, Stored::New);
                    reported |= s.conflicts.first().is_some();
                    rec = s.new;
                    racy |= seen.iter().any(|&(i, o, ep)| {
                        let same_group = ((i - 1) / 2) as usize == g;
                        i != item && conflicts(op, o) && !(same_group && ep != epochs[g])
                    });
                    seen.push((item, op, epochs[g]));
                }
            }
        }
        (reported, racy)
    }

    /// A record, an accessor and an access for the shift laws (`step_shifts`,
    /// `same_step_shifts`): items near 0 and near the top of their field, the record's own
    /// epoch half the time (only there does an access by the recorded item itself differ),
    /// sometimes the recorded item among the sixteen accessors, and sometimes the recorded
    /// item as the group's async-copy actor, often with a copy in flight.
    fn shift_case() -> impl Strategy<Value = (u64, Accessor, u16, u8, Op, Stored)> {
        let near_ends = |from: u32| prop_oneof![from..40, MAX_ITEM as u32 - 20..=MAX_ITEM as u32];
        (
            any::<u64>(),
            prop_oneof![
                Just(0u32),
                near_ends(1),
                (16u32..32).prop_map(|k| u32::MAX - k)
            ],
            near_ends(1),
            (1u32..40, 1u32..24, 1u32..8, 8u32..64),
            (
                prop_oneof![0u32..48, Just(u32::MAX)],
                prop_oneof![Just(None), (0u8..128).prop_map(Some), Just(Some(u8::MAX))],
            ),
            0u16..8,
            (0u8..128, any::<bool>()),
            0usize..4,
            stored(),
        )
            .prop_map(
                |(fields, old_item, item, groups, actor, site, epoch, op, same_value)| {
                    let (group_lo, group_len, launch_lo, launch_len) = groups;
                    // `MAX - 16 - k`: the accessor `k` (0..16) after the first.
                    let old_item = match u32::MAX - old_item {
                        k @ 16..32 => (item + k - 16).min(MAX_ITEM as u32),
                        _ => old_item,
                    };
                    let old = (fields & !MAX_ITEM) | old_item as u64;
                    let epoch = if epoch.1 { Rec(old).epoch() } else { epoch.0 };
                    let me = Accessor {
                        item,
                        group_lo,
                        group_hi: group_lo + group_len,
                        launch_lo,
                        launch_hi: launch_lo + launch_len,
                        actor: if actor.0 == u32::MAX {
                            old_item
                        } else {
                            actor.0
                        },
                        // `MAX`: a copy in flight since before any epoch a record holds.
                        actor_since: actor.1.map(|e| match e {
                            u8::MAX => epoch.wrapping_add(1) & 0x7F,
                            e => e,
                        }),
                    };
                    (old, me, site, epoch, Op::ALL[op], same_value)
                },
            )
    }

    /// Any [`Stored`].
    fn stored() -> impl Strategy<Value = Stored> {
        prop_oneof![Just(Stored::New), Just(Stored::Same), Just(Stored::Back)]
    }

    /// A record of a byte several items of group 0 (items 1..=4 of `me`) read in an epoch,
    /// with the other fields free.
    fn shared_read_record() -> impl Strategy<Value = u64> {
        (
            (1u32..=4, 0u16..8, any::<bool>(), 0u8..128),
            (
                0u64..8,
                0u64..16,
                any::<bool>(),
                any::<bool>(),
                any::<bool>(),
            ),
        )
            .prop_map(
                |((item, site, one_site, epoch), (h, o, other_kernel, sv_e, sv_o))| {
                    Fields {
                        item,
                        site,
                        one_site,
                        epoch,
                        last: Op::Read,
                        e: Op::Read.bit(),
                        many: true,
                        h: h | Op::Read.bit(),
                        o: o & !(Op::Write.bit() | Op::Atomic.bit()),
                        other_kernel,
                        sv_e,
                        sv_o,
                        init: true,
                    }
                    .pack()
                },
            )
    }

    /// A record holding reads only (plain or atomic), by an item of the launch of `me`'s
    /// items 1..=16 or of another, the other fields free.
    fn read_only_record() -> impl Strategy<Value = u64> {
        let reads = prop_oneof![
            Just(Op::Read.bit()),
            Just(Op::AtomicRead.bit()),
            Just(Op::Read.bit() | Op::AtomicRead.bit())
        ];
        (
            (1u32..=40, 0u16..8, any::<bool>(), 0u8..128, any::<bool>()),
            (reads.clone(), reads, 0u64..4, any::<bool>(), any::<bool>()),
            (any::<bool>(), any::<bool>(), any::<bool>()),
        )
            .prop_map(
                |(
                    (item, site, one_site, epoch, plain),
                    (e, h, o, many, other_kernel),
                    (sv_e, sv_o, init),
                )| {
                    Fields {
                        item,
                        site,
                        one_site,
                        epoch,
                        last: if plain { Op::Read } else { Op::AtomicRead },
                        e,
                        many,
                        h,
                        // Reads and atomic reads only.
                        o: (o & 1) | (o >> 1 & 1) << 3,
                        other_kernel,
                        sv_e,
                        sv_o,
                        init,
                    }
                    .pack()
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// A read of memory its launch never writes may leave a record `read_only_settled`
        /// holds for as it is: the read finds nothing, and an access that can still come (a
        /// write or an atomic of another launch or of the host, unordered with this launch)
        /// finds in the record left as it is every conflict, with the same earlier kind,
        /// that it finds in the record the read's full step makes. (It may find more: the
        /// full step forgets an atomic read beside a plain one, which a write races with too;
        /// and the scope may differ where the full step keeps other groups' reads as flags,
        /// which name no launch.)
        #[test]
        fn a_read_of_unwritten_memory_may_leave_a_settled_record_as_it_is(
            old in prop_oneof![read_only_record(), any::<u64>()],
            item in 1u32..=16,
            site in 0u16..8,
            epoch in 0u8..128,
            later in prop_oneof![Just(Op::Write), Just(Op::Atomic), Just(Op::AtomicRead)],
            later_item in 17u32..=24,
        ) {
            let who = super::me(item, (item - 1) / 4);
            if read_only_settled(old, &who) {
                let s = step(old, &who, site, epoch, Op::Read, Stored::New);
                prop_assert!(!s.conflicts.any() && !s.uninit);
                // Items 17..=24: the next launch, in groups of 4.
                let next = Accessor { item: later_item, group_lo: 17 + (later_item - 17) / 4 * 4,
                    group_hi: 21 + (later_item - 17) / 4 * 4, launch_lo: 17, launch_hi: 25,
                    actor: 0, actor_since: None };
                let kept = step(old, &next, 1, 0, later, Stored::New).conflicts;
                let stepped = step(s.new, &next, 1, 0, later, Stored::New).conflicts;
                for ((kind, a), (_, b)) in kept.iter_all().zip(stepped.iter_all()) {
                    if let Some(b) = b {
                        prop_assert_eq!(a.map(|c| c.first.op), Some(b.first.op), "{:?}", kind);
                    }
                }
            }
        }

        /// The generator above makes settled records often enough to test them.
        #[test]
        fn read_only_records_of_the_launch_are_often_settled(old in read_only_record()) {
            let r = Rec(old);
            let of_launch = (1..17).contains(&r.item());
            let plain = r.last() == Some(Op::Read);
            prop_assert_eq!(
                read_only_settled(old, &super::me(1, 0)),
                of_launch && plain && old & INIT_BIT != 0
            );
        }

        /// The shortcut of `step` for settled reads answers what the whole step does.
        #[test]
        fn a_settled_read_is_what_the_whole_step_computes(
            old in prop_oneof![shared_read_record(), any::<u64>()],
            item in 1u32..=8,
            site in 0u16..8,
            epoch in 0u8..128,
            same_value in stored(),
            at_its_site_and_epoch in any::<bool>(),
        ) {
            // Half the cases read in the record's own epoch and site (where it may settle).
            let (site, epoch) = if at_its_site_and_epoch {
                (Rec(old).site(), Rec(old).epoch())
            } else {
                (site, epoch)
            };
            let who = super::me(item, (item - 1) / 4);
            if settled_read(old, &who, site, epoch) {
                let s = step_full(old, &who, site, epoch, Op::Read, same_value);
                prop_assert_eq!(s.new, old);
                prop_assert!(!s.conflicts.any() && !s.uninit);
            }
        }

        /// Where `step_shifts` says so, the steps of a block's words by consecutive items
        /// are the first word's step shifted (`LaunchChecker::check_lane_blocks` takes one
        /// step for a block's sixteen).
        #[test]
        fn shifted_steps_are_the_first_step_shifted(
            (old, me, site, epoch, op, same_value) in shift_case()
        ) {
            let n = 16;
            if step_shifts(old, &me, n) {
                let first = step(old, &me, site, epoch, op, same_value);
                let named = |rec: u64, k: u32| if Rec(rec).item() == 0 { rec } else { rec + k as u64 };
                for k in 1..n {
                    let by = Accessor { item: me.item + k, ..me };
                    let s = step(named(old, k), &by, site, epoch, op, same_value);
                    prop_assert_eq!(s.new, named(first.new, k), "word {}", k);
                    prop_assert_eq!(s.conflicts.any(), first.conflicts.any());
                    prop_assert_eq!(s.uninit, first.uninit);
                }
            }
        }

        /// Where `same_step_shifts` says so, the steps of words with one equal record by
        /// consecutive items are the first word's step, shifted where it names the accessor
        /// (`LaunchChecker::check_run` takes one step for such a row of sixteen).
        #[test]
        fn steps_of_equal_records_are_the_first_step_shifted_where_it_names_the_accessor(
            (old, me, site, epoch, op, same_value) in shift_case()
        ) {
            let n = 16;
            if same_step_shifts(old, &me, n, epoch) {
                let first = step(old, &me, site, epoch, op, same_value);
                let names_me = Rec(first.new).item() == me.item;
                for k in 1..n {
                    let by = Accessor { item: me.item + k, ..me };
                    let s = step(old, &by, site, epoch, op, same_value);
                    let expected = if names_me { first.new + k as u64 } else { first.new };
                    prop_assert_eq!(s.new, expected, "word {}", k);
                    prop_assert_eq!(s.conflicts.any(), first.conflicts.any());
                    prop_assert_eq!(s.uninit, first.uninit);
                }
            }
        }

        /// The generator above makes settled reads often enough to test them.
        #[test]
        fn shared_read_records_are_settled_for_other_readers_of_their_epoch(
            old in shared_read_record()
        ) {
            let r = Rec(old);
            let other = if r.item() == 1 { 2 } else { 1 };
            let site = if r.one_site() { r.site() } else { 7 };
            prop_assert!(settled_read(old, &super::me(other, 0), site, r.epoch()));
        }

        /// No report without a race (no false positive), and no racy byte goes unreported.
        #[test]
        fn a_byte_is_reported_exactly_when_two_unordered_accesses_conflict(
            events in proptest::collection::vec(event(), 1..10)
        ) {
            let (reported, racy) = run(&events);
            prop_assert_eq!(reported, racy, "events: {:?}", events);
        }

        /// Two accesses by different items: a conflict is reported in either order or in
        /// neither, with the same pair of kinds; a barrier of their group in between orders
        /// them; other groups' barriers never do.
        #[test]
        fn pairs_are_symmetric_and_ordered_only_by_their_groups_barrier(
            a in 1u32..=4, other in 1u32..4, x in 0usize..3, y in 0usize..3, barrier in any::<bool>()
        ) {
            let b = (a - 1 + other) % 4 + 1;
            let ops = [Op::Read, Op::Write, Op::Atomic];
            let (x, y) = (ops[x], ops[y]);
            let same_group = (a - 1) / 2 == (b - 1) / 2;
            let epoch = barrier as u8;
            let pair = |p: u32, o1: Op, q: u32, o2: Op| {
                let first = step(INITIALISED, &who(p), 1, 0, o1, Stored::New).new;
                step(first, &who(q), 2, epoch, o2, Stored::New).conflicts.first().map(|c| {
                    let mut k = [c.first.op, o2];
                    k.sort();
                    k
                })
            };
            let ab = pair(a, x, b, y);
            let ba = pair(b, y, a, x);
            prop_assert_eq!(ab, ba);
            let expect = conflicts(x, y) && !(same_group && barrier);
            prop_assert_eq!(ab.is_some(), expect);
        }

        /// Same-value rules: a write storing the bytes already there races benignly only over
        /// bytes that held a value, with another write of them, or with a read when it put
        /// back what its work-item read there.
        #[test]
        fn same_value_writes_are_benign_only_over_defined_bytes(
            init in any::<bool>(), first in 0usize..3, stored in stored()
        ) {
            let ops = [Op::Read, Op::Write, Op::Atomic];
            let start = if init { INITIALISED } else { 0 };
            let r = step(start, &who(1), 1, 0, ops[first], Stored::New).new;
            let c = step(r, &who(2), 2, 0, Op::Write, stored).conflicts.first();
            prop_assert!(c.is_some());
            // The earlier access defines the bytes when it wrote them.
            let benign = match ops[first] {
                Op::Write => stored != Stored::New,
                Op::Read => stored == Stored::Back && init,
                _ => false,
            };
            prop_assert_eq!(c.unwrap().benign, benign);
        }
    }
}

#[test]
fn only_the_pairs_may_race_with_names_conflict() {
    // The pair pass takes pairs only where `may_race_with` holds: it must hold of every pair
    // the records find racing, in a group or across groups, whatever the value stored.
    for x in Op::ALL {
        for y in Op::ALL {
            for (second, scope) in [(me(2, 0), "group"), (me(6, 1), "launch")] {
                for same_value in [Stored::New, Stored::Same, Stored::Back] {
                    let first = step(INITIALISED, &me(1, 0), 1, 0, x, same_value).new;
                    let s = step(first, &second, 1, 0, y, same_value);
                    let conflicts = s.conflicts.iter_all().filter(|(_, c)| c.is_some()).count();
                    assert_eq!(
                        conflicts > 0,
                        x.may_race_with(y),
                        "{x:?} then {y:?} in one {scope}, {same_value:?}"
                    );
                }
            }
        }
    }
}
