use super::*;

/// Groups of 4 items (ids 1..=16), as in `mar`'s tests.
fn logged(seq: u64, item: u32, group: u32, barriers: u32, op: Op, inst: u32) -> Logged {
    Logged {
        seq,
        me: crate::mar::tests::me(item, group),
        epoch: barriers as u8,
        barriers,
        barriers_other: 0,
        op,
        stored: Stored::New,
        defined: true,
        inst: InstId(inst),
        item: WorkItem::default(),
        by_group: false,
        clock: 0,
        local: false,
        value: 0,
        own: false,
    }
}

/// A probe whose one watched byte logged `log`.
fn probe(log: &[Logged]) -> Probe {
    let mut byte = ByteLog::default();
    for e in log {
        byte.add(*e);
    }
    Probe {
        originals: HashMap::default(),
        allocs: HashSet::default(),
        index: [(
            Byte {
                alloc: AllocId(7),
                group: [0; 3],
                offset: 0,
            },
            0,
        )]
        .into_iter()
        .collect(),
        logs: vec![Mutex::new(byte)],
        seq: AtomicU64::new(0),
        sync: None,
    }
}

fn pairs(log: &[Logged]) -> Vec<(bool, RaceKind, Scope, u32, u32)> {
    let mut v: Vec<_> = probe(log)
        .pairs(|_| AddressSpace::Global, &|_| None)
        .into_iter()
        .map(|(r, _)| {
            let inst = |s: Option<(RawSide, Option<WorkItem>)>| match s {
                Some((RawSide::Here { inst: Some(i), .. }, _)) => i.0,
                _ => u32::MAX,
            };
            (
                r.key.kind == FindingKind::BenignRace,
                r.key.race.unwrap(),
                r.key.scope.unwrap(),
                inst(r.first),
                inst(r.second),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn every_pair_on_a_byte_is_named_whatever_the_order() {
    // Items 1 and 2 (group 0) read then write at instructions 10 and 11; item 5 (group 1)
    // writes at 12. Every order of these accesses names the same pairs.
    let accesses = [
        logged(0, 1, 0, 0, Op::Read, 10),
        logged(0, 1, 0, 0, Op::Write, 11),
        logged(0, 2, 0, 0, Op::Read, 10),
        logged(0, 2, 0, 0, Op::Write, 11),
        logged(0, 5, 1, 0, Op::Write, 12),
    ];
    let expected = vec![
        (false, RaceKind::WriteWrite, Scope::IntraGroup, 11, 11),
        (false, RaceKind::WriteWrite, Scope::InterGroup, 11, 12),
        (false, RaceKind::ReadWrite, Scope::IntraGroup, 10, 11),
        (false, RaceKind::ReadWrite, Scope::InterGroup, 10, 12),
    ];
    let orders: [[usize; 5]; 3] = [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [0, 2, 4, 1, 3]];
    for order in orders {
        let log: Vec<Logged> = order
            .iter()
            .enumerate()
            .map(|(seq, &i)| Logged {
                seq: seq as u64,
                ..accesses[i]
            })
            .collect();
        let mut got = pairs(&log);
        got.sort_by_key(|p| (p.1, p.2, p.3, p.4));
        let mut want = expected.clone();
        want.sort_by_key(|p| (p.1, p.2, p.3, p.4));
        assert_eq!(got, want, "order {order:?}");
    }
}

#[test]
fn a_barrier_orders_a_group_but_not_other_groups() {
    let log = [
        logged(0, 1, 0, 0, Op::Write, 10),
        logged(1, 2, 0, 1, Op::Read, 11),
        logged(2, 5, 1, 1, Op::Read, 12),
    ];
    assert_eq!(
        pairs(&log),
        vec![(false, RaceKind::ReadWrite, Scope::InterGroup, 10, 12)]
    );
}

/// A barrier that fenced only local memory lies between a group's global write and read:
/// they race, and the finding says why; without that barrier, no reason is given.
#[test]
fn a_race_across_a_barrier_of_the_other_memory_says_so() {
    let messages = |memory, other_barriers: u32| {
        let read = Logged {
            barriers_other: other_barriers,
            ..logged(1, 2, 0, 0, Op::Read, 11)
        };
        probe(&[logged(0, 1, 0, 0, Op::Write, 10), read])
            .pairs(|_| memory, &|_| None)
            .into_iter()
            .map(|(r, _)| r.message)
            .collect::<Vec<_>>()
    };
    let global = messages(AddressSpace::Global, 1);
    assert_eq!(global.len(), 1);
    assert!(
        global[0].contains("fences only __local memory"),
        "{global:?}"
    );
    assert!(global[0].contains("CLK_GLOBAL_MEM_FENCE"), "{global:?}");
    let local = messages(AddressSpace::Local, 1);
    assert!(local[0].contains("needs CLK_LOCAL_MEM_FENCE"), "{local:?}");
    assert_eq!(messages(AddressSpace::Global, 0), vec![String::new()]);
}

#[test]
fn reads_of_a_put_back_write_are_benign_and_undefined_bytes_have_no_value() {
    let write = |seq, item, defined, stored| Logged {
        stored,
        defined,
        ..logged(seq, item, 0, 0, Op::Write, 10)
    };
    let read = logged(1, 2, 0, 0, Op::Read, 11);
    assert_eq!(
        pairs(&[write(0, 1, true, Stored::Back), read]),
        vec![(true, RaceKind::ReadWrite, Scope::IntraGroup, 10, 11)]
    );
    assert_eq!(
        pairs(&[write(0, 1, false, Stored::Back), read]),
        vec![(false, RaceKind::ReadWrite, Scope::IntraGroup, 10, 11)]
    );
    // The same value by chance of this input: a data race, said so.
    assert_eq!(
        pairs(&[write(0, 1, true, Stored::Same), read]),
        vec![(false, RaceKind::ReadWrite, Scope::IntraGroup, 10, 11)]
    );
    let found =
        probe(&[write(0, 1, true, Stored::Same), read]).pairs(|_| AddressSpace::Global, &|_| None);
    assert!(
        found[0].0.message.contains("hid no wrong value"),
        "{found:?}"
    );
}

#[test]
fn a_byte_keeps_two_accesses_per_class() {
    let mut byte = ByteLog::default();
    for item in 1..=4 {
        byte.add(logged(item as u64, item, 0, 0, Op::Write, 10));
    }
    for item in [5, 6, 9, 13] {
        byte.add(logged(item as u64, item, item / 4, 0, Op::Write, 10));
    }
    assert!(byte.intra.values().all(|v| v.len() <= 2));
    assert_eq!(byte.inter.values().map(Vec::len).sum::<usize>(), 2);
}

#[test]
fn the_watched_bytes_are_the_lowest_whatever_the_order_found() {
    let byte = |offset| Byte {
        alloc: AllocId(1),
        group: [0; 3],
        offset,
    };
    let n = WATCH_LIMIT as u64 * 3;
    let (mut up, mut down) = (Vec::new(), Vec::new());
    for o in 0..n {
        up.push(byte(o));
        keep_lowest(&mut up, 2 * WATCH_LIMIT);
        down.push(byte(n - 1 - o));
        keep_lowest(&mut down, 2 * WATCH_LIMIT);
    }
    keep_lowest(&mut up, 0);
    keep_lowest(&mut down, 0);
    assert_eq!(up, down);
    assert_eq!(up.len(), WATCH_LIMIT);
    assert_eq!(up.last().map(|b| b.offset), Some(WATCH_LIMIT as u64 - 1));
}
