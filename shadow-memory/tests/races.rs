//! The race checker, rule by rule: synthetic events through the `Observer` hooks, the exact
//! findings expected.

mod common;

use common::*;

#[test]
fn intra_group_read_write_in_local_memory_names_both_accesses() {
    let s = session(Checks::default());
    let r = launch(&s, 0, false, |c| {
        let mut g = group(c, 0);
        write(c, &mut g, Local, AllocId::local(0), 8, wi(0, 0), 10);
        read(c, &mut g, Local, AllocId::local(0), 8, wi(0, 1), 11);
        c.group_end(g);
    });
    assert_eq!(
        kinds(&r),
        [(
            FindingKind::DataRace,
            Some(RaceKind::ReadWrite),
            Some(Scope::IntraGroup)
        )]
    );
    let f = &r.findings[0];
    assert_eq!(f.memory, Some(Local));
    assert_eq!(
        (f.buffer.as_deref(), f.offset, f.index),
        (Some("tile"), Some(8), Some(2))
    );
    let (a, b) = (f.first.as_ref().unwrap(), f.second.as_ref().unwrap());
    assert_eq!(
        (
            a.access.as_str(),
            a.local_id,
            a.location.as_ref().map(|l| l.line)
        ),
        ("write", Some([0, 0, 0]), Some(10))
    );
    assert_eq!(
        (
            b.access.as_str(),
            b.local_id,
            b.location.as_ref().map(|l| l.line)
        ),
        ("read", Some([1, 0, 0]), Some(11))
    );
    assert_eq!(f.count, 1);
}

#[test]
fn intra_group_write_write_in_global_memory() {
    let s = session(Checks::default());
    let r = launch(&s, 0, false, |c| {
        let mut g = group(c, 1);
        write(c, &mut g, Global, OUT, 4, wi(1, 2), 20);
        write(c, &mut g, Global, OUT, 4, wi(1, 3), 20);
        c.group_end(g);
    });
    assert_eq!(
        kinds(&r),
        [(
            FindingKind::DataRace,
            Some(RaceKind::WriteWrite),
            Some(Scope::IntraGroup)
        )]
    );
    let f = &r.findings[0];
    assert_eq!((f.buffer.as_deref(), f.index), (Some("out"), Some(1)));
    // The first work-item is reconstructed from the record: group 1, local 2, global 6.
    let first = f.first.as_ref().unwrap();
    assert_eq!(
        (first.global_id, first.group_id),
        (Some([6, 0, 0]), Some([1, 0, 0]))
    );
}

#[test]
fn one_instruction_over_two_buffers_checks_each_in_its_own_records() {
    // `p[i]` with `p` chosen per work-item: one instruction, two allocations, word by word.
    let s = session(Checks::default());
    let r = launch(&s, 0, false, |c| {
        let mut g = group(c, 1);
        write(c, &mut g, Global, BUF, 0, wi(1, 2), 40);
        write(c, &mut g, Global, OUT, 0, wi(1, 3), 40);
        write(c, &mut g, Global, BUF, 4, wi(1, 0), 40);
        read(c, &mut g, Global, BUF, 0, wi(1, 3), 41);
        c.group_end(g);
    });
    assert_eq!(
        kinds(&r),
        [(
            FindingKind::DataRace,
            Some(RaceKind::ReadWrite),
            Some(Scope::IntraGroup)
        )]
    );
    let f = &r.findings[0];
    assert_eq!((f.buffer.as_deref(), f.index), (Some("data"), Some(0)));
    let first = f.first.as_ref().unwrap();
    assert_eq!(first.local_id, Some([2, 0, 0]));
}

#[test]
fn inter_group_race_survives_barriers() {
    let s = session(Checks::default());
    let r = launch(&s, 0, false, |c| {
        let mut g0 = group(c, 0);
        write(c, &mut g0, Global, BUF, 0, wi(0, 0), 30);
        barrier(c, &mut g0, 0, 31, GLOBAL_FENCE);
        c.group_end(g0);
        let mut g1 = group(c, 1);
        read(c, &mut g1, Global, BUF, 0, wi(1, 0), 32);
        c.group_end(g1);
    });
    assert_eq!(
        kinds(&r),
        [(
            FindingKind::DataRace,
            Some(RaceKind::ReadWrite),
            Some(Scope::InterGroup)
        )]
    );
}

#[test]
fn barrier_orders_group_accesses_for_its_fenced_memory_only() {
    let s = session(Checks::default());
    let r = launch(&s, 0, false, |c| {
        let mut g = group(c, 0);
        // Tile pattern: each item writes its slot, barrier, everyone reads every slot.
        for l in 0..LOCAL as u32 {
            write(
                c,
                &mut g,
                Local,
                AllocId::local(0),
                4 * l as u64,
                wi(0, l),
                40,
            );
        }
        barrier(c, &mut g, 0, 41, LOCAL_FENCE);
        for l in 0..LOCAL as u32 {
            for slot in 0..LOCAL as u64 {
                read(c, &mut g, Local, AllocId::local(0), 4 * slot, wi(0, l), 42);
            }
        }
        barrier(c, &mut g, 0, 43, LOCAL_FENCE);
        // After the second barrier the slots may be rewritten by anyone.
        write(c, &mut g, Local, AllocId::local(0), 0, wi(0, 3), 44);
        c.group_end(g);
    });
    assert!(r.findings.is_empty(), "{}", r.render_text());

    // A local fence does not order global memory.
    let r = launch(&s, 1, false, |c| {
        let mut g = group(c, 0);
        write(c, &mut g, Global, BUF, 16, wi(0, 0), 50);
        barrier(c, &mut g, 0, 51, LOCAL_FENCE);
        read(c, &mut g, Global, BUF, 16, wi(0, 1), 52);
        c.group_end(g);
    });
    assert_eq!(
        kinds(&r),
        [(
            FindingKind::DataRace,
            Some(RaceKind::ReadWrite),
            Some(Scope::IntraGroup)
        )]
    );
    assert_eq!(
        r.findings[0]
            .second
            .as_ref()
            .unwrap()
            .location
            .as_ref()
            .unwrap()
            .line,
        52
    );
}

#[test]
fn hundreds_of_local_barriers_never_make_an_old_write_look_current() {
    let s = session(Checks::default());
    let r = launch(&s, 0, false, |c| {
        let mut g = group(c, 0);
        write(c, &mut g, Local, AllocId::local(0), 0, wi(0, 0), 45);
        // 256 barriers bring the 8-bit epoch back to the write's value.
        for _ in 0..256 {
            barrier(c, &mut g, 0, 46, LOCAL_FENCE);
        }
        read(c, &mut g, Local, AllocId::local(0), 0, wi(0, 1), 47);
        c.group_end(g);
    });
    assert!(r.findings.is_empty(), "{}", r.render_text());
}

#[test]
fn hundreds_of_global_barriers_never_make_an_old_write_look_current() {
    let s = session(Checks::default());
    let r = launch(&s, 0, false, |c| {
        let mut g = group(c, 0);
        write(c, &mut g, Global, BUF, 0, wi(0, 0), 45);
        // 256 global-fence barriers bring the 8-bit epoch back to the write's value.
        for _ in 0..256 {
            barrier(c, &mut g, 0, 46, GLOBAL_FENCE);
        }
        read(c, &mut g, Global, BUF, 0, wi(0, 1), 47);
        c.group_end(g);
    });
    assert!(r.findings.is_empty(), "{}", r.render_text());
}

#[test]
fn many_readers_then_a_write_races() {
    let s = session(Checks::default());
    let r = launch(&s, 0, false, |c| {
        let mut g = group(c, 0);
        read(c, &mut g, Global, BUF, 0, wi(0, 0), 60);
        read(c, &mut g, Global, BUF, 0, wi(0, 1), 60);
        write(c, &mut g, Global, BUF, 0, wi(0, 1), 61);
        c.group_end(g);
    });
    // The first reader writing instead: the other reader is unidentified, still a race.
    let r2 = launch(&session(Checks::default()), 0, false, |c| {
        let mut g = group(c, 0);
        read(c, &mut g, Global, BUF, 0, wi(0, 0), 60);
        read(c, &mut g, Global, BUF, 0, wi(0, 1), 60);
        write(c, &mut g, Global, BUF, 0, wi(0, 0), 61);
        c.group_end(g);
    });
    assert_eq!(r2.findings.len(), 1);
    assert_eq!(r2.findings[0].first.as_ref().unwrap().global_id, None);
    // Both in one launch: the unidentified one is counted with the identified pair.
    let r3 = launch(&session(Checks::default()), 0, false, |c| {
        let mut g = group(c, 0);
        for (slot, writer) in [(0, 0), (4, 1)] {
            read(c, &mut g, Global, BUF, slot, wi(0, 0), 60);
            read(c, &mut g, Global, BUF, slot, wi(0, 1), 60);
            write(c, &mut g, Global, BUF, slot, wi(0, writer), 61);
        }
        c.group_end(g);
    });
    assert_eq!(r3.findings.len(), 1, "{}", r3.render_text());
    assert_eq!(r3.findings[0].count, 2);
    assert!(
        r3.findings[0].first.as_ref().unwrap().global_id.is_some(),
        "{}",
        r3.render_text()
    );
    assert_eq!(
        kinds(&r),
        [(
            FindingKind::DataRace,
            Some(RaceKind::ReadWrite),
            Some(Scope::IntraGroup)
        )]
    );
    // The record kept the first reader, so the owner's write names it.
    let first = r.findings[0].first.as_ref().unwrap();
    assert_eq!(
        (first.access.as_str(), first.global_id),
        ("read", Some([0, 0, 0]))
    );
}

#[test]
fn atomics_do_not_race_with_atomics_but_do_with_plain_accesses() {
    let s = session(Checks::default());
    let r = launch(&s, 0, false, |c| {
        let mut g0 = group(c, 0);
        atomic(c, &mut g0, OUT, 0, wi(0, 0), 70);
        atomic(c, &mut g0, OUT, 0, wi(0, 1), 70);
        c.group_end(g0);
        let mut g1 = group(c, 1);
        atomic(c, &mut g1, OUT, 0, wi(1, 0), 70);
        c.group_end(g1);
    });
    assert!(r.findings.is_empty(), "{}", r.render_text());
    let r = launch(&s, 1, false, |c| {
        let mut g0 = group(c, 0);
        atomic(c, &mut g0, OUT, 0, wi(0, 0), 70);
        read(c, &mut g0, Global, OUT, 0, wi(0, 1), 71);
        c.group_end(g0);
    });
    assert_eq!(
        kinds(&r),
        [(
            FindingKind::DataRace,
            Some(RaceKind::AtomicPlain),
            Some(Scope::IntraGroup)
        )]
    );
}

#[test]
fn same_value_write_is_benign_hidden_by_default_and_shown_on_request() {
    let body = |c: &LaunchChecker<'_>| {
        let mut g = group(c, 0);
        acc(
            c,
            &mut g,
            Global,
            BUF,
            0,
            AccessKind::Write,
            wi(0, 0),
            80,
            &[1; 4],
            &[0; 4],
        );
        acc(
            c,
            &mut g,
            Global,
            BUF,
            0,
            AccessKind::Write,
            wi(0, 1),
            80,
            &[1; 4],
            &[1; 4],
        );
        c.group_end(g);
    };
    let hidden = launch(&session(Checks::default()), 0, false, body);
    assert!(hidden.findings.is_empty());
    let shown = launch(&session("races,benign".parse().unwrap()), 0, false, body);
    assert_eq!(
        kinds(&shown),
        [(
            FindingKind::BenignRace,
            Some(RaceKind::WriteWrite),
            Some(Scope::IntraGroup)
        )]
    );
}

#[test]
fn kernel_writes_initialise_for_later_launches() {
    let s = session(Checks::default());
    launch(&s, 0, false, |c| {
        let mut g = group(c, 0);
        write(c, &mut g, Global, OUT, 0, wi(0, 0), 120);
        c.group_end(g);
    });
    let r = launch(&s, 1, false, |c| {
        let mut g = group(c, 1);
        read(c, &mut g, Global, OUT, 0, wi(1, 0), 121);
        c.group_end(g);
    });
    assert!(r.findings.is_empty(), "{}", r.render_text());
}

#[test]
fn inter_kernel_races_only_between_concurrent_launches() {
    let first = |c: &LaunchChecker<'_>| {
        let mut g = group(c, 0);
        write(c, &mut g, Global, BUF, 0, wi(0, 0), 130);
        c.group_end(g);
    };
    let second = |c: &LaunchChecker<'_>| {
        let mut g = group(c, 0);
        read(c, &mut g, Global, BUF, 0, wi(0, 0), 131);
        c.group_end(g);
    };
    let s = session(Checks::default());
    launch(&s, 0, false, first);
    let r = launch(&s, 1, true, second);
    assert_eq!(
        kinds(&r),
        [(
            FindingKind::DataRace,
            Some(RaceKind::ReadWrite),
            Some(Scope::InterKernel)
        )]
    );
    let f = &r.findings[0];
    assert_eq!(
        (
            f.first.as_ref().unwrap().launch,
            f.second.as_ref().unwrap().launch
        ),
        (0, 1)
    );
    assert_eq!(f.first.as_ref().unwrap().global_id, Some([0, 0, 0]));

    let s = session(Checks::default());
    launch(&s, 0, false, first);
    let r = launch(&s, 1, false, second);
    assert!(r.findings.is_empty(), "{}", r.render_text());
    assert_eq!(r.launches.len(), 2);
}

/// A partial order as a platform gives it: launch `key` follows the launches in `after`.
struct Follows {
    key: u64,
    after: &'static [u64],
}

impl LaunchOrder for Follows {
    fn key(&self) -> u64 {
        self.key
    }
    fn follows(&self, key: u64) -> bool {
        self.after.contains(&key)
    }
    fn settled(&self, _: u64) -> bool {
        false
    }
}

/// Runs launch `c` of kernel `k` as one work-group doing `f`.
fn one_group(c: &LaunchChecker<'_>, f: &dyn Fn(&LaunchChecker<'_>, &mut Box<GroupState>)) {
    start(c, "k");
    let mut g = group(c, 0);
    f(c, &mut g);
    c.group_end(g);
    c.launch_end();
}

#[test]
fn records_of_ordered_launches_count_as_reset_and_overlapping_ones_race() {
    let s = session(Checks::default());
    // Launch 0 writes element 0; launch 1 (ordered after 0, like the next command of the same
    // queue) writes element 1; launch 2 follows launch 1 only, but by transitivity the
    // platform also lists 0. Then launch 3 overlaps everything.
    let orders = [
        Follows {
            key: 10,
            after: &[],
        },
        Follows {
            key: 11,
            after: &[10],
        },
        Follows {
            key: 12,
            after: &[10, 11],
        },
        Follows {
            key: 13,
            after: &[],
        },
    ];
    let c = s.launch(&loc, 0, "serial", &orders[0]);
    one_group(&c, &|c, g| {
        write(c, g, Global, BUF, 0, wi(0, 0), 150);
        write(c, g, Global, BUF, 8, wi(0, 1), 150);
    });
    drop(c);
    let c = s.launch(&loc, 1, "serial", &orders[1]);
    one_group(&c, &|c, g| write(c, g, Global, BUF, 4, wi(0, 0), 151));
    drop(c);
    // Ordered after both writers: reading either element is no race, and the records of
    // launch 0 survived launch 1 (no reset of everything).
    let c = s.launch(&loc, 2, "serial", &orders[2]);
    one_group(&c, &|c, g| {
        read(c, g, Global, BUF, 0, wi(0, 0), 152);
        read(c, g, Global, BUF, 4, wi(0, 1), 152);
    });
    drop(c);
    assert!(
        s.report().findings.is_empty(),
        "{}",
        s.report().render_text()
    );
    // Launch 3 overlaps all of them: its write of element 0 races with launch 2's read (the
    // last access recorded there), its read of element 8 with launch 0's write, which only
    // launch 0 touched: its records outlived the two launches ordered after it.
    let c = s.launch(&loc, 3, "serial", &orders[3]);
    one_group(&c, &|c, g| {
        write(c, g, Global, BUF, 0, wi(0, 0), 153);
        read(c, g, Global, BUF, 8, wi(0, 1), 154);
    });
    drop(c);
    let r = s.report();
    let race = (
        FindingKind::DataRace,
        Some(RaceKind::ReadWrite),
        Some(Scope::InterKernel),
    );
    assert_eq!(kinds(&r), [race, race], "{}", r.render_text());
    let mut firsts: Vec<(u64, Option<i64>)> = r
        .findings
        .iter()
        .map(|f| (f.first.as_ref().unwrap().launch, f.offset))
        .collect();
    firsts.sort();
    assert_eq!(firsts, [(0, Some(8)), (2, Some(0))]);
}

/// The launches of one in-order queue: each follows every launch before it.
struct InOrder(u64);

impl LaunchOrder for InOrder {
    fn key(&self) -> u64 {
        self.0
    }
    fn follows(&self, key: u64) -> bool {
        key < self.0
    }
    fn settled(&self, _: u64) -> bool {
        false
    }
}

/// Launches `ids` of one queue (`InOrder`), in each one work-item writing `offset(id)`
/// (site 151); none of them races with the ones before.
fn queue_writes(s: &Session, ids: std::ops::RangeInclusive<u64>, offset: impl Fn(u64) -> u64) {
    for k in ids {
        let order = InOrder(k);
        let c = s.launch(&loc, k, "serial", &order);
        one_group(&c, &|c, g| {
            write(c, g, Global, BUF, offset(k), wi(0, 0), 151)
        });
        drop(c);
    }
    assert!(
        s.report().findings.is_empty(),
        "{}",
        s.report().render_text()
    );
}

/// Launch `id`, ordered after no other (`Follows` of `key`), one group running `body`;
/// then every finding's first launch and offset, sorted.
fn unordered_launch(
    s: &Session,
    id: u64,
    key: u64,
    body: &dyn Fn(&LaunchChecker<'_>, &mut Box<GroupState>),
) -> Vec<(u64, Option<i64>)> {
    let order = Follows { key, after: &[] };
    let c = s.launch(&loc, id, "serial", &order);
    one_group(&c, body);
    drop(c);
    let mut firsts: Vec<(u64, Option<i64>)> = s
        .report()
        .findings
        .iter()
        .map(|f| (f.first.as_ref().unwrap().launch, f.offset))
        .collect();
    firsts.sort();
    firsts
}

/// The window of launches a new one is compared with holds at most 256 (`WINDOW_CAP`), so a
/// launch start stays cheap when thousands are enqueued without a wait: past it the oldest
/// launches ordered before the new one are forgotten (their records read as reset), the
/// newest kept.
#[test]
fn a_full_window_forgets_its_oldest_launches_first() {
    let s = session(Checks::default());
    // Launch 0 alone writes element 8; then 300 launches of one queue write element 0.
    let c = s.launch(&loc, 0, "serial", &InOrder(0));
    one_group(&c, &|c, g| write(c, g, Global, BUF, 8, wi(0, 0), 150));
    drop(c);
    queue_writes(&s, 1..=300, |_| 0);
    // A launch of another queue, ordered after none of them, reads both elements: element
    // 0 races with the last writer, still in the window; launch 0 was forgotten.
    let firsts = unordered_launch(&s, 301, 1000, &|c, g| {
        read(c, g, Global, BUF, 0, wi(0, 0), 152);
        read(c, g, Global, BUF, 8, wi(0, 1), 152);
    });
    assert_eq!(firsts, [(300, Some(0))], "{}", s.report().render_text());
}

/// Past the window's cap with a launch of another queue in it that every later launch may
/// overlap: the oldest launches ordered before the new one leave, the overlapping one stays.
#[test]
fn a_full_window_keeps_the_launch_that_overlaps_and_forgets_the_oldest_before_it() {
    let s = session(Checks::default());
    // Launch 0 of another queue writes element 60; launch 1 writes element 50, launches
    // 2..=300 of its queue element 0.
    unordered_launch(&s, 0, 1000, &|c, g| {
        write(c, g, Global, BUF, 240, wi(0, 0), 150)
    });
    queue_writes(&s, 1..=300, |k| if k == 1 { 200 } else { 0 });
    // A launch ordered after none of them reads the three elements.
    let firsts = unordered_launch(&s, 301, 2000, &|c, g| {
        for (l, offset) in [0, 200, 240].into_iter().enumerate() {
            read(c, g, Global, BUF, offset, wi(0, l as u32), 152);
        }
    });
    assert_eq!(
        firsts,
        [(0, Some(240)), (300, Some(0))],
        "{}",
        s.report().render_text()
    );
}

/// A partial order as [`Follows`] gives it that counts the questions asked of it.
struct Counted {
    order: Follows,
    asked: std::sync::atomic::AtomicUsize,
}

impl Counted {
    fn new(key: u64, after: &'static [u64]) -> Counted {
        Counted {
            order: Follows { key, after },
            asked: Default::default(),
        }
    }

    fn asked(&self) -> usize {
        self.asked.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl LaunchOrder for Counted {
    fn key(&self) -> u64 {
        self.order.key()
    }
    fn follows(&self, key: u64) -> bool {
        self.asked
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.order.follows(key)
    }
    fn settled(&self, key: u64) -> bool {
        self.asked
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.order.settled(key)
    }
}

/// A launch start asks the order about the window's entries from the newest, and stops at
/// one that followed every older entry and precedes the new launch (the order's questions
/// are transitive): launches of one queue ask about one entry each. Past an entry that did
/// not follow everything older, it asks on, and finds the older launch it overlaps.
#[test]
fn a_launch_start_asks_about_older_launches_only_until_one_followed_them_all() {
    let s = session(Checks::default());
    // Launches 0..4 of one queue (each follows all before it) write element 0.
    const KEYS: [&[u64]; 5] = [&[], &[0], &[0, 1], &[0, 1, 2], &[0, 1, 2, 3]];
    for (k, after) in KEYS.iter().enumerate() {
        let order = Counted::new(k as u64, after);
        let c = s.launch(&loc, k as u64, "serial", &order);
        one_group(&c, &|c, g| write(c, g, Global, BUF, 0, wi(0, 0), 150));
        drop(c);
        // Two questions (settled, follows) about the newest entry, whatever the window holds.
        assert!(
            order.asked() <= 2,
            "launch {k}: {} questions",
            order.asked()
        );
    }
    // Launch 5 of another queue overlaps them all (it asks about every entry); launch 6
    // follows launch 5 only: launch 5 did not follow the older ones, so launch 6 asks on,
    // and its write of element 0 races with launch 4's.
    for (k, after) in [(5, &[][..]), (6, &[5][..])] {
        let order = Counted::new(k, after);
        let c = s.launch(&loc, k, "serial", &order);
        one_group(&c, &|c, g| write(c, g, Global, BUF, 4 * k, wi(0, 0), 151));
        drop(c);
        assert!(
            order.asked() >= 2 * 5,
            "launch {k}: {} questions",
            order.asked()
        );
    }
    let order = Counted::new(7, &[5, 6]);
    let c = s.launch(&loc, 7, "serial", &order);
    one_group(&c, &|c, g| write(c, g, Global, BUF, 0, wi(0, 0), 152));
    drop(c);
    let r = s.report();
    let firsts: Vec<(u64, u64, Option<i64>)> = r
        .findings
        .iter()
        .map(|f| (f.first.as_ref().unwrap().launch, f.launch, f.offset))
        .collect();
    assert_eq!(firsts, [(4, 7, Some(0))], "{}", r.render_text());
}

#[test]
fn identical_pairs_are_counted_and_each_launch_is_capped() {
    let s = session(Checks::default());
    let r = launch(&s, 0, false, |c| {
        for gid in 0..GROUPS as u32 {
            let mut g = group(c, gid);
            for l in 0..LOCAL as u32 {
                // Everyone writes element 0 from the same instruction.
                write(c, &mut g, Global, OUT, 0, wi(gid, l), 140);
            }
            c.group_end(g);
        }
    });
    // 3 intra-group races in each group, and group 1's first write races with group 0's.
    assert_eq!(
        r.findings
            .iter()
            .map(|f| (f.scope, f.count))
            .collect::<Vec<_>>(),
        [(Some(Scope::IntraGroup), 6), (Some(Scope::InterGroup), 1)]
    );
    // The same pair in a later launch adds to the count.
    let r = launch(&s, 1, false, |c| {
        let mut g = group(c, 0);
        write(c, &mut g, Global, OUT, 0, wi(0, 0), 140);
        write(c, &mut g, Global, OUT, 0, wi(0, 1), 140);
        c.group_end(g);
    });
    assert_eq!(r.findings[0].count, 7);

    let s = session(Checks::default());
    let r = launch(&s, 0, false, |c| {
        let mut g = group(c, 0);
        for i in 0..150 {
            write(c, &mut g, Global, OUT, 0, wi(0, i % 2), 1000 + i);
        }
        c.group_end(g);
    });
    assert_eq!(
        (r.findings.len(), r.dropped),
        (shadowcl_shadow::LAUNCH_CAP, 49)
    );
}

#[test]
fn groups_on_several_threads_update_global_records_atomically() {
    let s = session(Checks::default());
    let r = launch(&s, 0, false, |c| {
        std::thread::scope(|sc| {
            for gid in 0..GROUPS as u32 {
                sc.spawn(move || {
                    let mut g = group(c, gid);
                    for l in 0..LOCAL as u32 {
                        // Disjoint elements per work-item: no race whatever the interleaving.
                        let off = 4 * (gid * LOCAL as u32 + l) as u64;
                        for _ in 0..200 {
                            write(c, &mut g, Global, BUF, off, wi(gid, l), 150);
                            read(c, &mut g, Global, BUF, off, wi(gid, l), 151);
                        }
                    }
                    c.group_end(g);
                });
            }
        });
    });
    assert!(r.findings.is_empty(), "{}", r.render_text());
    // Only the 256-byte buffer was touched, a word at a time: 2 bytes of shadow per byte.
    assert_eq!(s.shadow_bytes(), 256 * 2);
}

/// A copy's half of an access: 4 bytes at `offset`, carrying undefined bytes.
fn copy_half(
    c: &LaunchChecker<'_>,
    g: &mut Box<GroupState>,
    offset: u64,
    kind: AccessKind,
    undefined: u8,
) {
    let (v, p) = ([7u8; 4], [0u8; 4]);
    let item = wi(0, 0);
    let writes = kind == AccessKind::Write;
    c.access(
        g,
        &Access {
            space: Global,
            alloc: OUT,
            offset,
            size: 4,
            kind,
            value: if writes { &v } else { &[] },
            previous: if writes { &p } else { &[] },
            item: &item,
            inst: InstId(140),
            by_group: false,
            copy: true,
            undefined,
            component: 0,
        },
    );
}

#[test]
fn copies_carry_undefined_bytes_and_reads_report_them() {
    // OUT was created without data. Each launch: what it does, then the offset read.
    let uninit_reads = |body: &dyn Fn(&LaunchChecker<'_>, &mut Box<GroupState>), offset: u64| {
        let s = session(Checks::default());
        let r = launch(&s, 0, false, |c| {
            let mut g = group(c, 0);
            body(c, &mut g);
            read(c, &mut g, Global, OUT, offset, wi(0, 0), 141);
            c.group_end(g);
        });
        let kinds: Vec<FindingKind> = r.findings.iter().map(|f| f.kind).collect();
        assert!(
            kinds.iter().all(|&k| k == FindingKind::UninitializedRead),
            "{}",
            r.render_text()
        );
        kinds.len()
    };
    // A copy of never-written bytes reports nothing; its destination stays undefined, so
    // a later read there is a use (also through a second copy).
    let undefined_copy = |c: &LaunchChecker<'_>, g: &mut Box<GroupState>| {
        copy_half(c, g, 32, AccessKind::Read, 0);
        copy_half(c, g, 0, AccessKind::Write, 0);
        copy_half(c, g, 0, AccessKind::Read, 0);
        copy_half(c, g, 8, AccessKind::Write, 0);
    };
    assert_eq!(uninit_reads(&undefined_copy, 8), 1);
    assert_eq!(uninit_reads(&undefined_copy, 0), 1);
    // A copy of written bytes defines its destination.
    let defined_copy = |c: &LaunchChecker<'_>, g: &mut Box<GroupState>| {
        write(c, g, Global, OUT, 16, wi(0, 0), 142);
        copy_half(c, g, 16, AccessKind::Read, 0);
        copy_half(c, g, 24, AccessKind::Write, 0);
    };
    assert_eq!(uninit_reads(&defined_copy, 24), 0);
    // The executor says which bytes of a private source were undefined (bits 2-3 here).
    let private_source = |c: &LaunchChecker<'_>, g: &mut Box<GroupState>| {
        copy_half(c, g, 12, AccessKind::Write, 0b1100);
    };
    assert_eq!(uninit_reads(&private_source, 12), 1);
    let private_defined = |c: &LaunchChecker<'_>, g: &mut Box<GroupState>| {
        copy_half(c, g, 12, AccessKind::Write, 0);
    };
    assert_eq!(uninit_reads(&private_defined, 12), 0);
}

/// `r` has one finding: a data race of `race` involving a host command.
fn assert_one_host_race(r: &Report, race: RaceKind) {
    assert_eq!(
        kinds(r),
        [(FindingKind::DataRace, Some(race), Some(Scope::HostCommand))],
        "{}",
        r.render_text()
    );
}

/// A host command (`Session::host_command`) unordered with a kernel races with it like a
/// launch, whichever runs first; ordered, or reading what the kernel read, it does not.
#[test]
fn host_commands_race_with_unordered_kernels_only() {
    let kernel_writes = |c: &LaunchChecker<'_>| {
        let mut g = group(c, 0);
        write(c, &mut g, Global, BUF, 8, wi(0, 2), 140);
        c.group_end(g);
    };
    let kernel_reads = |c: &LaunchChecker<'_>| {
        let mut g = group(c, 0);
        read(c, &mut g, Global, BUF, 8, wi(0, 2), 141);
        c.group_end(g);
    };
    let transfer = |write: bool| {
        [HostAccess {
            param: "buffer",
            alloc: BUF,
            offset: 0,
            len: 64,
            write,
        }]
    };

    // Kernel first, then a read of the buffer: the read is the second side.
    let s = session(Checks::default());
    launch(&s, 0, false, kernel_writes);
    s.host_command(0, "clEnqueueReadBuffer", &transfer(false), &Unordered);
    let r = s.report();
    assert_one_host_race(&r, RaceKind::ReadWrite);
    let f = &r.findings[0];
    let (a, b) = (f.first.as_ref().unwrap(), f.second.as_ref().unwrap());
    assert_eq!((a.host, a.kernel.as_str(), a.launch), (false, "k", 0));
    assert_eq!(a.location.as_ref().map(|l| l.line), Some(140));
    assert_eq!(
        (b.host, b.kernel.as_str(), b.global_id),
        (true, "clEnqueueReadBuffer", None)
    );
    assert!(!b.unidentified());
    // Called as the kernel calls the buffer, in bytes.
    assert_eq!(
        (f.buffer.as_deref(), f.offset, f.index),
        (Some("data"), Some(8), None)
    );
    assert!(r
        .render_text()
        .contains("read by host command clEnqueueReadBuffer (command 0)"));
    // The report's launches are the kernel's only.
    assert_eq!(r.launches.len(), 1);

    // A write first, then a kernel that reads: the kernel is the second side.
    let s = session(Checks::default());
    s.host_command(0, "clEnqueueWriteBuffer", &transfer(true), &Sequential);
    let r = launch(&s, 0, true, kernel_reads);
    assert_one_host_race(&r, RaceKind::ReadWrite);
    let f = &r.findings[0];
    assert_eq!(f.buffer.as_deref(), Some("data"));
    assert!(f.first.as_ref().unwrap().host);
    assert_eq!(
        f.second.as_ref().unwrap().location.as_ref().map(|l| l.line),
        Some(141)
    );

    // Ordered after the kernel: nothing.
    let s = session(Checks::default());
    launch(&s, 0, false, kernel_writes);
    s.host_command(0, "clEnqueueReadBuffer", &transfer(false), &Sequential);
    assert!(s.report().findings.is_empty());

    // Two reads never race.
    let s = session(Checks::default());
    launch(&s, 0, false, kernel_reads);
    s.host_command(0, "clEnqueueReadBuffer", &transfer(false), &Unordered);
    assert!(
        s.report().findings.is_empty(),
        "{}",
        s.report().render_text()
    );

    // Two unordered host writes race with each other, both sides host commands.
    let s = session(Checks::default());
    s.host_command(0, "clEnqueueFillBuffer", &transfer(true), &Sequential);
    s.host_command(1, "clEnqueueWriteBuffer", &transfer(true), &Unordered);
    let r = s.report();
    assert_one_host_race(&r, RaceKind::WriteWrite);
    let f = &r.findings[0];
    let (a, b) = (f.first.as_ref().unwrap(), f.second.as_ref().unwrap());
    // No kernel: the buffer is the entry point's parameter.
    assert_eq!(f.buffer.as_deref(), Some("buffer"));
    assert_eq!(
        (a.host, a.kernel.as_str(), a.launch),
        (true, "clEnqueueFillBuffer", 0)
    );
    assert_eq!(
        (b.host, b.kernel.as_str(), b.launch),
        (true, "clEnqueueWriteBuffer", 1)
    );
}

/// An access is a benign race only if every byte's conflict is: a read over bytes of which
/// only the first were written with the value already there races with the others.
#[test]
fn a_long_access_is_benign_only_if_every_byte_is() {
    let s = session(Checks::default());
    launch(&s, 0, false, |c| {
        let mut g = group(c, 0);
        // Item 0 puts back the zeros already there; item 1 stores new bytes after them.
        acc(
            c,
            &mut g,
            Global,
            BUF,
            0,
            AccessKind::Write,
            wi(0, 0),
            PUT_BACK + 150,
            &[0; 4],
            &[0; 4],
        );
        write(c, &mut g, Global, BUF, 4, wi(0, 1), 151);
        c.group_end(g);
    });
    let r = launch(&s, 1, true, |c| {
        let mut g = group(c, 0);
        let item = wi(0, 0);
        c.access(
            &mut g,
            &Access {
                space: Global,
                alloc: BUF,
                offset: 0,
                size: 8,
                kind: AccessKind::Read,
                value: &[],
                previous: &[],
                item: &item,
                inst: InstId(152),
                by_group: false,
                copy: false,
                undefined: 0,
                component: 0,
            },
        );
        c.group_end(g);
    });
    assert_eq!(
        kinds(&r),
        [(
            FindingKind::DataRace,
            Some(RaceKind::ReadWrite),
            Some(Scope::InterKernel)
        )],
        "{}",
        r.render_text()
    );
    assert_eq!(r.findings[0].offset, Some(4));
}

/// With the race checks off a host command's writes still make its bytes defined: a kernel's
/// later read of them is not an uninitialised read, while a read of bytes it did not write is.
#[test]
fn host_command_writes_initialise_without_the_race_checks() {
    let s = session(Checks {
        uninit: true,
        ..Checks::none()
    });
    let write = [HostAccess {
        param: "buffer",
        alloc: OUT,
        offset: 0,
        len: 8,
        write: true,
    }];
    s.host_command(0, "clEnqueueWriteBuffer", &write, &Sequential);
    let r = launch(&s, 0, false, |c| {
        let mut g = group(c, 0);
        read(c, &mut g, Global, OUT, 4, wi(0, 0), 160);
        read(c, &mut g, Global, OUT, 8, wi(0, 1), 161);
        c.group_end(g);
    });
    assert_eq!(
        kinds(&r),
        [(FindingKind::UninitializedRead, None, None)],
        "{}",
        r.render_text()
    );
    assert_eq!(r.findings[0].offset, Some(8));
}

/// Host command ranges past a buffer's end, or of buffers the session does not know, are cut
/// to what is shadowed (no allocation sized by them, no endless loop).
#[test]
fn host_command_ranges_are_cut_to_the_shadowed_bytes() {
    let s = session(Checks::default());
    let access = |alloc: AllocId, offset: u64, len: u64| HostAccess {
        param: "buffer",
        alloc,
        offset,
        len,
        write: true,
    };
    s.host_command(
        0,
        "clEnqueueWriteBuffer",
        &[
            access(OUT, 60, u64::MAX),
            access(OUT, u64::MAX, 16),
            access(AllocId(77), 0, u64::MAX),
        ],
        &Unordered,
    );
    // Only OUT's bytes 60..64 were written: a kernel unordered with the command races there.
    let r = launch(&s, 0, true, |c| {
        let mut g = group(c, 0);
        read(c, &mut g, Global, OUT, 60, wi(0, 0), 170);
        c.group_end(g);
    });
    assert_one_host_race(&r, RaceKind::ReadWrite);
}

/// Hands `lanes` to the checker as one lockstep operation (`whole`: `access_lanes`) or lane
/// by lane, each access as `access` gets it, in `lanes.order`.
fn send_lanes(
    c: &LaunchChecker<'_>,
    g: &mut Box<GroupState>,
    lanes: &LaneAccesses<'_>,
    whole: bool,
) {
    if whole {
        c.access_lanes(g, lanes);
        return;
    }
    let mut bytes = [[0u8; 8]; 2];
    for &l in lanes.order {
        c.access(g, &lanes.lane(l, &mut bytes));
    }
}

/// One lockstep operation: (space, alloc, kind, inst, lane offsets); `None`: a barrier of
/// the group (local and global fences).
type LaneOp = Option<(AddressSpace, AllocId, AccessKind, u32, [u64; LOCAL])>;

/// Group 1 runs `ops`, its lanes in `order`, each access handed over lane by lane (`access`)
/// or each operation whole (`access_lanes`).
fn lockstep_ops(ops: &[LaneOp], order: [usize; LOCAL], whole: bool) -> Report {
    let items: Vec<WorkItem> = (0..LOCAL as u32).map(|l| wi(1, l)).collect();
    let (values, previous) = ([0x0403_0201u64; LOCAL], [0u64; LOCAL]);
    launch(&session(Checks::default()), 0, false, |c| {
        let mut g = group(c, 1);
        for op in ops {
            let Some((space, alloc, kind, inst, offsets)) = *op else {
                let both = Fences {
                    local: true,
                    global: true,
                };
                barrier(c, &mut g, 1, 99, both);
                continue;
            };
            let lanes = LaneAccesses {
                space,
                alloc,
                size: 4,
                kind,
                inst: InstId(inst),
                items: &items,
                order: &order,
                offsets: &offsets,
                values: &values,
                previous: &previous,
                component: 0,
                known_span: None,
            };
            send_lanes(c, &mut g, &lanes, whole);
        }
        c.group_end(g);
    })
}

/// The accesses of lockstep operations, handed over lane by lane (`access`) and as one
/// operation (`access_lanes`): the same findings, in the same words.
#[test]
fn a_lockstep_operation_is_checked_as_its_accesses_one_by_one() {
    // An intra-group write-write race (lanes 1 and 3 store to word 4 of `out`), a read of
    // local memory nobody wrote, and reads of words that other lanes of the group wrote
    // (read-write races).
    let ops: [LaneOp; 3] = [
        Some((Global, OUT, AccessKind::Write, 30, [0, 4, 8, 4])),
        Some((
            Local,
            AllocId::local(0),
            AccessKind::Read,
            31,
            [0, 4, 8, 12],
        )),
        Some((Global, OUT, AccessKind::Read, 32, [4, 8, 0, 12])),
    ];
    let order = [2, 0, 3, 1];
    let r1 = lockstep_ops(&ops, order, false);
    let r2 = lockstep_ops(&ops, order, true);
    // Word 12 of `out` is read and never written: a second uninitialised read.
    assert_eq!(
        kinds(&r2),
        [
            (
                FindingKind::DataRace,
                Some(RaceKind::ReadWrite),
                Some(Scope::IntraGroup)
            ),
            (
                FindingKind::DataRace,
                Some(RaceKind::WriteWrite),
                Some(Scope::IntraGroup)
            ),
            (FindingKind::UninitializedRead, None, None),
            (FindingKind::UninitializedRead, None, None),
        ]
    );
    assert_eq!(r1.findings, r2.findings);
}

/// Lockstep reads of a local word many lanes share (a tile's element after the barrier that
/// published it) skip the general check once the word is a settled shared read
/// (`check_lanes`); a later write by one lane still races with them, and reads after that
/// write race with it, as when each access is checked alone. Global memory, which goes the
/// general way, must give the same findings.
#[test]
fn settled_shared_reads_in_lockstep_still_race_with_a_later_write() {
    for (space, alloc) in [(Local, AllocId::local(0)), (Global, OUT)] {
        let lanes_write = |inst, offsets| Some((space, alloc, AccessKind::Write, inst, offsets));
        let lanes_read = |inst, offsets| Some((space, alloc, AccessKind::Read, inst, offsets));
        let ops: [LaneOp; 6] = [
            lanes_write(40, [0, 4, 8, 12]),
            None,
            // Every lane reads word 0, then word 4: settled from the third reader on.
            lanes_read(41, [0; LOCAL]),
            lanes_read(42, [4; LOCAL]),
            // Lane 2 writes word 0 again (the others write word 12), then all read word 0.
            lanes_write(43, [12, 12, 0, 12]),
            lanes_read(44, [0; LOCAL]),
        ];
        for order in [[0, 1, 2, 3], [3, 1, 0, 2]] {
            let r1 = lockstep_ops(&ops, order, false);
            let r2 = lockstep_ops(&ops, order, true);
            assert_eq!(r1.findings, r2.findings, "{space:?} {order:?}");
            let at_word_0: Vec<_> = r2
                .findings
                .iter()
                .filter(|f| f.memory == Some(space) && f.offset == Some(0))
                .map(|f| (f.race, f.first.as_ref().map(|a| a.access.clone())))
                .collect();
            for first in ["read", "write"] {
                assert!(
                    at_word_0.contains(&(Some(RaceKind::ReadWrite), Some(first.into()))),
                    "{space:?} {order:?}: {at_word_0:?}"
                );
            }
        }
    }
}

/// Lanes per group in the block tests: two shadow blocks' worth of 4-byte accesses.
const WIDE: usize = 32;
/// The block tests' buffer: 128 words, not initialised by the host.
const WIDE_BUF: AllocId = AllocId(3000);

/// One lockstep operation of a [`WIDE`]-lane group over `WIDE_BUF`: (group, kind, inst,
/// first word, lane `l`'s word is first word + `l` + `shift(l)` (wrapping), whether lane
/// `l`'s value equals what it replaces); `None`: the launch ends and the next begins.
type WideOp = Option<(
    u32,
    AccessKind,
    u32,
    u64,
    fn(usize) -> u64,
    fn(usize) -> bool,
)>;

fn wide_item(g: u32, l: u32) -> WorkItem {
    WorkItem {
        global: [(g * WIDE as u32 + l) as u64, 0, 0],
        local: [l, 0, 0],
        group: [g, 0, 0],
        local_linear: l,
    }
}

/// Runs `ops` in launches of two [`WIDE`]-lane groups, lanes in reverse order, each
/// operation whole (`access_lanes`) or lane by lane (`access`); returns the report and the
/// shadow bytes allocated.
fn wide_ops(ops: &[WideOp], whole: bool) -> (Report, usize) {
    let reverse: Vec<usize> = (0..WIDE).rev().collect();
    wide_ops_in(ops, whole, &reverse)
}

/// [`wide_ops`] with the lanes in `order`.
fn wide_ops_in(ops: &[WideOp], whole: bool, order: &[usize]) -> (Report, usize) {
    let s = Session::new(Config {
        checks: Checks::default(),
        ..Config::default()
    });
    s.buffer_created(WIDE_BUF, 512, false);
    let args = [ArgBinding {
        index: 0,
        name: "wide".into(),
        space: Global,
        alloc: Some(WIDE_BUF),
        view_offset: 0,
        view_size: 512,
        elem_size: 4,
        never_written: false,
    }];
    for (id, launch_ops) in ops.split(Option::is_none).enumerate() {
        let c = s.launch(
            &TestProgram,
            id as u64,
            "wg=in-order,wi=reverse",
            &Sequential,
        );
        c.launch_start(&LaunchInfo {
            kernel: "wide",
            work_dim: 1,
            global_offset: [0; 3],
            global_size: [2 * WIDE as u64, 1, 1],
            local_size: [WIDE as u64, 1, 1],
            num_groups: [2, 1, 1],
            args: &args,
            local_allocs: &[],
        });
        let mut groups: Vec<Box<GroupState>> = (0..2)
            .map(|g| {
                c.group_start(&GroupInfo {
                    group: [g, 0, 0],
                    group_linear: g as u64,
                    items: WIDE as u32,
                })
            })
            .collect();
        for &(g, kind, inst, first, shift, same) in launch_ops.iter().flatten() {
            let items: Vec<WorkItem> = (0..WIDE as u32).map(|l| wide_item(g, l)).collect();
            let offsets: Vec<u64> = (0..WIDE)
                .map(|l| 4 * (first + l as u64).wrapping_add(shift(l)))
                .collect();
            let values: Vec<u64> = (0..WIDE as u64).map(|l| 100 + l).collect();
            let previous: Vec<u64> = (0..WIDE)
                .map(|l| if same(l) { values[l] } else { 0 })
                .collect();
            let lanes = LaneAccesses {
                space: Global,
                alloc: WIDE_BUF,
                size: 4,
                kind,
                inst: InstId(inst),
                items: &items,
                order,
                offsets: &offsets,
                values: &values,
                previous: &previous,
                component: 0,
                known_span: None,
            };
            send_lanes(&c, &mut groups[g as usize], &lanes, whole);
        }
        for g in groups {
            c.group_end(g);
        }
        c.launch_end();
    }
    (s.report(), s.shadow_bytes())
}

/// A finding as (kind, race, scope).
type FindingKinds = (FindingKind, Option<RaceKind>, Option<Scope>);

/// Runs `ops` ([`wide_ops_in`]) whole and lane by lane, lanes in `order`: asserts the
/// findings alike, and returns the whole run's report and its findings' kinds.
fn global_ops_alike(ops: &[WideOp], order: &[usize]) -> (Report, Vec<FindingKinds>) {
    let (by_lane, _) = wide_ops_in(ops, false, order);
    let (by_block, _) = wide_ops_in(ops, true, order);
    assert_eq!(by_lane.findings, by_block.findings);
    let got = by_block
        .findings
        .iter()
        .map(|f| (f.kind, f.race, f.scope))
        .collect();
    (by_block, got)
}

/// Lockstep operations over whole shadow blocks (consecutive lanes, consecutive words) are
/// checked a block at a time while that finds nothing: the findings are those of checking
/// every lane's access alone, in the schedule's order, and such blocks cost 1/8 shadow byte
/// per byte.
#[test]
fn block_checked_operations_find_what_lane_by_lane_checks_find() {
    use AccessKind::{Read, Write};
    let none: fn(usize) -> u64 = |_| 0;
    let new: fn(usize) -> bool = |_| false;
    let ops: [WideOp; 11] = [
        // Group 0 writes words 0..32 and reads them back; group 1 writes 32..64.
        Some((0, Write, 1, 0, none, new)),
        Some((0, Read, 2, 0, none, new)),
        Some((1, Write, 3, 32, none, new)),
        // Group 1 reads 16..48: words 16..32 are group 0's (inter-group read-write).
        Some((1, Read, 4, 16, none, new)),
        // Group 0 writes 64..96, then reads 65..97: its own lanes' words (intra-group), and
        // word 96, never written (uninitialised).
        Some((0, Write, 5, 64, none, new)),
        Some((0, Read, 6, 65, none, new)),
        None,
        // A later launch: the records of the first are ordered before it (no race).
        Some((0, Read, 7, 0, none, new)),
        // Group 1 stores over words 32..64, the even lanes putting back the values already
        // there, while group 0 reads 48..80: a race, benign only at the even words.
        Some((1, Write, PUT_BACK + 8, 32, none, |l| l % 2 == 0)),
        Some((0, Read, 9, 48, none, new)),
        // Two lanes on one word: lane 31's word is lane 30's (the run does not cover it).
        Some((1, Write, 10, 96, |l| (l == 31) as u64 * u64::MAX, new)),
    ];
    let reverse: Vec<usize> = (0..WIDE).rev().collect();
    let (by_block, got) = global_ops_alike(&ops, &reverse);
    for want in [
        (
            FindingKind::DataRace,
            Some(RaceKind::ReadWrite),
            Some(Scope::InterGroup),
        ),
        (
            FindingKind::DataRace,
            Some(RaceKind::ReadWrite),
            Some(Scope::IntraGroup),
        ),
        (FindingKind::UninitializedRead, None, None),
        (
            FindingKind::DataRace,
            Some(RaceKind::WriteWrite),
            Some(Scope::IntraGroup),
        ),
    ] {
        assert!(got.contains(&want), "{want:?} not in {got:?}");
    }
    // The later launch's race is at the odd words 49..64 only (8 of them; the lanes run in
    // reverse, so word 63 is named): a block's words whose stores differ in "same value"
    // are not checked as one.
    let later: Vec<_> = by_block
        .findings
        .iter()
        .filter(|f| f.launch == 1 && f.race == Some(RaceKind::ReadWrite))
        .map(|f| (f.kind, f.index, f.count))
        .collect();
    assert_eq!(later, [(FindingKind::DataRace, Some(63), 8)]);
    // Operations that only ever cover whole blocks: one record per block, where word
    // records take 2 bytes per byte.
    let blocks_only = &ops[..3];
    let (r, bytes) = wide_ops(blocks_only, true);
    assert!(r.findings.is_empty(), "{}", r.render_text());
    assert_eq!(bytes, 512 / 64 * 8);
    assert_eq!(wide_ops(blocks_only, false).1, 512 * 2);
}

/// One lockstep operation of a [`WIDE`]-lane group over its local allocation: (kind, inst,
/// first word, lanes that access (from lane 0), lane `l`'s word is first word + `l` +
/// `shift(l)`, wrapping); `None`: a barrier (local fence).
type LocalOp = Option<(AccessKind, u32, u64, usize, fn(usize) -> u64)>;

/// Runs `ops` in one [`WIDE`]-lane group of one launch, lanes in `order` (those past an
/// operation's lane count skip it), each operation whole (`access_lanes`) or lane by lane.
fn wide_local_ops(ops: &[LocalOp], order: &[usize], whole: bool) -> Report {
    let s = Session::new(Config {
        checks: Checks::default(),
        ..Config::default()
    });
    let c = s.launch(&loc, 0, "wg=in-order,wi=custom", &Sequential);
    let local = [LocalAlloc {
        name: "s".into(),
        size: 512,
        arg_index: None,
        elem_size: 4,
    }];
    c.launch_start(&one_group_launch("wide_local", WIDE as u64, &[], &local));
    let mut g = c.group_start(&GroupInfo {
        group: [0; 3],
        group_linear: 0,
        items: WIDE as u32,
    });
    let items: Vec<WorkItem> = (0..WIDE as u32).map(|l| wide_item(0, l)).collect();
    let values: Vec<u64> = (0..WIDE as u64).map(|l| 100 + l).collect();
    let previous = vec![0u64; WIDE];
    for op in ops {
        let Some((kind, inst, first, active, shift)) = *op else {
            for item in &items {
                c.barrier(
                    &mut g,
                    &BarrierArrival {
                        item,
                        inst: InstId(900),
                        fences: LOCAL_FENCE,
                    },
                );
            }
            c.barrier_release(&mut g, Release::AllArrived);
            continue;
        };
        let offsets: Vec<u64> = (0..WIDE)
            .map(|l| 4 * (first + l as u64).wrapping_add(shift(l)) % 512)
            .collect();
        let lanes_order: Vec<usize> = order.iter().copied().filter(|&l| l < active).collect();
        let lanes = LaneAccesses {
            space: Local,
            alloc: AllocId::local(0),
            size: 4,
            kind,
            inst: InstId(inst),
            items: &items,
            order: &lanes_order,
            offsets: &offsets,
            values: &values,
            previous: &previous,
            component: 0,
            known_span: None,
        };
        send_lanes(&c, &mut g, &lanes, whole);
    }
    c.group_end(g);
    c.launch_end();
    s.report()
}

/// Runs `ops` ([`wide_local_ops`]) in forward and in reverse lane order, each operation
/// whole and lane by lane: asserts that each order's findings are alike both ways, and
/// returns the whole runs' reports.
fn local_ops_alike(ops: &[LocalOp]) -> Vec<Report> {
    let forward: Vec<usize> = (0..WIDE).collect();
    let reverse: Vec<usize> = forward.iter().rev().copied().collect();
    [forward, reverse]
        .iter()
        .map(|order| {
            let by_lane = wide_local_ops(ops, order, false);
            let by_block = wide_local_ops(ops, order, true);
            assert_eq!(by_lane.findings, by_block.findings, "order {order:?}");
            by_block
        })
        .collect()
}

/// A finding as (kind, race, line of its first access, line of its second, count).
type FindingLines = (FindingKind, Option<RaceKind>, Option<u32>, Option<u32>, u64);

fn finding_lines(f: &shadowcl_shadow::Finding) -> FindingLines {
    let line =
        |s: Option<&shadowcl_shadow::Side>| s.and_then(|s| s.location.as_ref()).map(|l| l.line);
    let (first, second) = (line(f.first.as_ref()), line(f.second.as_ref()));
    (f.kind, f.race, first, second, f.count)
}

/// Local memory's lockstep operations over whole blocks of words (a reduction's `s[l]` and
/// `s[l + k]`) are checked a block at a time, and reads of one word by consecutive lanes
/// share one settled check: the findings are those of checking every lane's access alone,
/// in the schedule's order.
#[test]
fn block_checked_local_operations_find_what_lane_by_lane_checks_find() {
    use AccessKind::{Read, Write};
    let none: fn(usize) -> u64 = |_| 0;
    let ops: [LocalOp; 17] = [
        // A reduction's first steps: every lane stores s[l]; lanes < 16 add s[l + 16] to
        // s[l]; lanes < 8 add s[l + 8] (no blocks: per lane). No race.
        Some((Write, 1, 0, WIDE, none)),
        None,
        Some((Read, 2, 0, 16, none)),
        Some((Read, 3, 16, 16, none)),
        Some((Write, 4, 0, 16, none)),
        None,
        Some((Read, 5, 0, 8, none)),
        Some((Read, 6, 8, 8, none)),
        Some((Write, 7, 0, 8, none)),
        None,
        // Every lane reads word 5 (a tile's element): settled from the third lane on.
        Some((Read, 8, 5, WIDE, |l| (l as u64).wrapping_neg())),
        // Lanes < 16 store words 16..32, then every lane reads its word without a barrier:
        // lanes 16.. race with those stores (a block whose step finds the race).
        Some((Write, 9, 16, 16, none)),
        Some((Read, 10, 0, WIDE, none)),
        // Lanes < 4 store words 2..6: lane 3's word 5 every lane read.
        Some((Write, 11, 2, 4, none)),
        // Words 64..96 were never written: an uninitialised block read.
        Some((Read, 12, 64, WIDE, none)),
        None,
        Some((Read, 13, 5, WIDE, |l| (l as u64).wrapping_neg())),
    ];
    for by_block in local_ops_alike(&ops) {
        let line = |f: &shadowcl_shadow::Finding| {
            let (kind, race, _, second, _) = finding_lines(f);
            (kind, race, second)
        };
        let got: Vec<_> = by_block.findings.iter().map(line).collect();
        for want in [
            (FindingKind::DataRace, Some(RaceKind::ReadWrite), Some(10)),
            (FindingKind::DataRace, Some(RaceKind::ReadWrite), Some(11)),
            (FindingKind::UninitializedRead, None, Some(12)),
        ] {
            assert!(got.contains(&want), "{want:?} not in {got:?}");
        }
        // Nothing else: the reduction's steps and the last read are ordered by barriers.
        assert!(
            got.iter().all(|g| (10..=12).contains(&g.2.unwrap_or(0))),
            "{got:?}"
        );
        // Lanes 16..'s reads race, lanes < 16's do not.
        let at_line_10: Vec<_> = by_block
            .findings
            .iter()
            .filter(|f| line(f).2 == Some(10))
            .map(|f| f.count)
            .collect();
        assert_eq!(at_line_10, [16], "{}", by_block.render_text());
    }
}

/// Lane `l`'s word `K` of its row of 16 lanes, as a [`LocalOp`] shift (`ta[row][K]` of a
/// tiled product: lane `l` reads word first + 16 * (l / 16) + `K`).
fn row_word<const K: u64>(l: usize) -> u64 {
    K.wrapping_sub((l % 16) as u64)
}

/// A tiled product's tile: each row of 16 lanes reads the 16 words of its row one word at
/// a time (every lane of the row the same word, so each word's record names its first
/// reader: a row of equal records), then stores the row (lane `l` word `l`), which local
/// memory checks as one step per row. The findings are those of checking every lane alone:
/// after a barrier nothing; without one, every store races with the row's reads by others;
/// a read of a stored word by another lane races with the lane the record names.
#[test]
fn rows_read_by_their_lanes_then_stored_find_what_lane_by_lane_checks_find() {
    use AccessKind::{Read, Write};
    let none: fn(usize) -> u64 = |_| 0;
    let row: [fn(usize) -> u64; 16] = [
        row_word::<0>,
        row_word::<1>,
        row_word::<2>,
        row_word::<3>,
        row_word::<4>,
        row_word::<5>,
        row_word::<6>,
        row_word::<7>,
        row_word::<8>,
        row_word::<9>,
        row_word::<10>,
        row_word::<11>,
        row_word::<12>,
        row_word::<13>,
        row_word::<14>,
        row_word::<15>,
    ];
    let mut ops: Vec<LocalOp> = vec![Some((Write, 1, 0, WIDE, none)), None];
    for (read, write, barrier) in [(2, 3, true), (4, 5, true), (6, 7, false)] {
        ops.extend(row.iter().map(|&f| Some((Read, read, 0, WIDE, f))));
        if barrier {
            ops.push(None);
        }
        ops.push(Some((Write, write, 0, WIDE, none)));
        if write == 3 {
            // Each lane reads the next lane's word (lane 31 a word nobody wrote): races
            // with the store only if its record names the lane that stored it.
            ops.push(Some((Read, 8, 1, WIDE, none)));
        }
        ops.push(None);
    }
    for by_block in local_ops_alike(&ops) {
        let races: Vec<FindingLines> = by_block.findings.iter().map(finding_lines).collect();
        let race = |first, second, count| {
            let race = Some(RaceKind::ReadWrite);
            (
                FindingKind::DataRace,
                race,
                Some(first),
                Some(second),
                count,
            )
        };
        let lane_31 = (FindingKind::UninitializedRead, None, None, Some(8), 1);
        let mut want = vec![
            race(3, 8, WIDE as u64 - 1),
            lane_31,
            race(6, 7, WIDE as u64),
        ];
        let mut got = races.clone();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{}", by_block.render_text());
    }
}

/// Rows of lanes reading one row of words (`tb[k][lx]` of a tiled product: lane `l` reads
/// word `l % 16`): the runs share a block, so each is checked as one where it comes in the
/// schedule (the first row's reads name it, the others' are settled); the findings are
/// those of checking every lane alone.
#[test]
fn rows_reading_one_row_find_what_lane_by_lane_checks_find() {
    use AccessKind::{Read, Write};
    let none: fn(usize) -> u64 = |_| 0;
    let column: fn(usize) -> u64 = |l| (16 * (l / 16) as u64).wrapping_neg();
    let ops: [LocalOp; 8] = [
        Some((Write, 1, 0, WIDE, none)),
        None,
        // Both rows read words 0..16, twice: the second time row 1's words are settled
        // (row 0's items named, many readers), row 0's are not (they name its own lanes).
        Some((Read, 2, 0, WIDE, column)),
        Some((Read, 2, 0, WIDE, column)),
        // Another instruction: records that keep one site are not settled for it.
        Some((Read, 3, 0, WIDE, column)),
        // Row 0 stores its words without a barrier: races with row 1's reads.
        Some((Write, 4, 0, 16, none)),
        None,
        Some((Read, 5, 0, WIDE, column)),
    ];
    for by_block in local_ops_alike(&ops) {
        let got: Vec<_> = by_block.findings.iter().map(finding_lines).collect();
        let race = (FindingKind::DataRace, Some(RaceKind::ReadWrite));
        let (kind, race, second, count) = (race.0, race.1, Some(4), 16);
        assert!(
            matches!(got[..], [(k, r, _, s, c)] if (k, r, s, c) == (kind, race, second, count)),
            "{}",
            by_block.render_text()
        );
    }
}

/// Rows of lanes reading one row of global words (every row of both groups the same 16
/// words): the runs share a block, so each is checked as one where its lanes come in the
/// schedule, and the words keep their block record; the findings are those of checking every
/// lane alone.
#[test]
fn rows_reading_one_global_row_find_what_lane_by_lane_checks_find() {
    use AccessKind::{Read, Write};
    let none: fn(usize) -> u64 = |_| 0;
    let column: fn(usize) -> u64 = |l| (16 * (l / 16) as u64).wrapping_neg();
    let new: fn(usize) -> bool = |_| false;
    let ops: [WideOp; 6] = [
        Some((0, Write, 1, 0, none, new)),
        None,
        Some((0, Read, 2, 0, column, new)),
        Some((0, Read, 2, 0, column, new)),
        Some((1, Read, 3, 0, column, new)),
        // Group 1 stores words 0..32: races with the reads of words 0..16 (one race per kind
        // and access is reported: its own group's reads).
        Some((1, Write, 4, 0, none, new)),
    ];
    let forward: Vec<usize> = (0..WIDE).collect();
    let (by_block, got) = global_ops_alike(&ops, &forward);
    let race = (
        FindingKind::DataRace,
        Some(RaceKind::ReadWrite),
        Some(Scope::IntraGroup),
    );
    assert_eq!(got, [race], "{}", by_block.render_text());
    // Without the store, every operation was checked a block at a time: the buffer's
    // records stayed one per block.
    let reads = &ops[..5];
    let (r, bytes) = wide_ops_in(reads, true, &forward);
    assert!(r.findings.is_empty(), "{}", r.render_text());
    assert_eq!(bytes, 512 / 64 * 8);
    assert_eq!(wide_ops_in(reads, false, &forward).1, 512 * 2);
}

/// A work-item's read of memory its launch never writes, finding a word this launch already
/// read, makes that word and the read ones after it quiet for its instruction (the executor
/// then reports no read there: `Observer::read_is_quiet`), and no word no one read: a later
/// unordered write still races with the one read of each word, and not with a word never
/// read.
#[test]
fn quiet_reads_cover_only_words_the_launch_already_read() {
    let s = session(Checks::default());
    let mut a = args();
    a[0].never_written = true;
    let l = locals();
    let c = s.launch(&loc, 0, "serial", &Unordered);
    c.launch_start(&one_group_launch("sum", LOCAL as u64, &a, &l));
    let mut g = group(&c, 0);
    let quiet = |g: &_, inst: u32, offset: u64| c.read_is_quiet(g, BUF, InstId(inst), offset, 4);
    // Work-item 0 reads words 0..8 (each read steps its record: nothing is quiet yet).
    for w in 0..8 {
        read(&c, &mut g, Global, BUF, 4 * w, wi(0, 0), 30);
    }
    assert!((0..8).all(|w| !quiet(&g, 30, 4 * w)));
    // Work-item 1's read of word 1 settles: words 1..8 go quiet, word 8 (unread) does not.
    read(&c, &mut g, Global, BUF, 4, wi(0, 1), 30);
    assert!((1..8).all(|w| quiet(&g, 30, 4 * w)));
    assert!(!quiet(&g, 30, 0) && !quiet(&g, 30, 32));
    // Only that instruction's reads, of that buffer, of whole aligned words.
    assert!(!quiet(&g, 31, 4) && !c.read_is_quiet(&g, OUT, InstId(30), 4, 4));
    assert!(!c.read_is_quiet(&g, BUF, InstId(30), 4, 8));
    assert!(!c.read_is_quiet(&g, BUF, InstId(30), 6, 4));
    // Work-item 1 reads word 8 (stepping it), then word 2 again: word 8 joins.
    read(&c, &mut g, Global, BUF, 32, wi(0, 1), 30);
    read(&c, &mut g, Global, BUF, 8, wi(0, 1), 30);
    assert!(quiet(&g, 30, 32) && !quiet(&g, 30, 36));
    c.group_end(g);
    c.launch_end();
    drop(c);
    assert!(s.report().findings.is_empty());
    // An unordered launch writes words 7 and 9: it races with the read of word 7 only.
    let firsts = unordered_launch(&s, 1, 1, &|c, g| {
        write(c, g, Global, BUF, 28, wi(0, 0), 40);
        write(c, g, Global, BUF, 36, wi(0, 0), 40);
    });
    assert_eq!(firsts, [(0, Some(28))]);
}

/// A group's quiet reads are its own: the next group a worker starts on the same state
/// begins with none (its first read of each instruction is checked, and noted as its).
#[test]
fn quiet_reads_end_with_their_group() {
    let s = session(Checks::default());
    let mut a = args();
    a[0].never_written = true;
    let l = locals();
    let c = s.launch(&loc, 0, "serial", &Unordered);
    c.launch_start(&one_group_launch("sum", 2 * LOCAL as u64, &a, &l));
    let mut g = group(&c, 0);
    read(&c, &mut g, Global, BUF, 0, wi(0, 0), 30);
    read(&c, &mut g, Global, BUF, 0, wi(0, 1), 30);
    assert!(c.read_is_quiet(&g, BUF, InstId(30), 0, 4));
    let g = c
        .group_end_keep(g)
        .expect("the checker keeps its group states");
    let next = c.group_start_on(
        &GroupInfo {
            group: [1, 0, 0],
            group_linear: 1,
            items: LOCAL as u32,
        },
        Some(g),
    );
    assert!(!c.read_is_quiet(&next, BUF, InstId(30), 0, 4));
    c.group_end(next);
    c.launch_end();
}

#[test]
fn a_group_state_kept_from_a_launch_serves_the_next_launch_as_a_new_one() {
    let s = session(Checks::default());
    // Launch 0: item 0 writes local word 8 and global `out` word 4; its worker gives the
    // group's state back for the next launch.
    let r = launch(&s, 0, false, |c| {
        let mut g = group(c, 0);
        write(c, &mut g, Local, AllocId::local(0), 8, wi(0, 0), 10);
        write(c, &mut g, Global, OUT, 4, wi(0, 0), 10);
        let kept = c.group_end_keep(g);
        assert!(kept.is_some());
        c.worker_done(kept);
    });
    assert!(r.findings.is_empty());
    // Launch 1, after it: its first group takes that state. Launch 0's local records are
    // gone (another item's read of word 8 is no race, but a read of memory this group never
    // wrote), its global one is an earlier launch's (no race); the same instruction's race
    // is this launch's.
    // Another program: its instruction 10 is at line 110 (the kept state's sites are gone).
    let moved = |inst: InstId| loc(InstId(inst.0 + 100));
    let c = s.launch(
        &moved,
        1,
        "wg=in-order,wi=in-order,q=0,seed=0,serial",
        &Sequential,
    );
    // Its local variable is twice as large: the race is past the kept records' end.
    let mut l = locals();
    l[0].size = 128;
    start_with(&c, "k", &l);
    {
        let mut g = group(&c, 0);
        let c = &c;
        read(c, &mut g, Local, AllocId::local(0), 8, wi(0, 1), 11);
        read(c, &mut g, Global, OUT, 4, wi(0, 1), 11);
        write(c, &mut g, Local, AllocId::local(0), 96, wi(0, 0), 10);
        read(c, &mut g, Local, AllocId::local(0), 96, wi(0, 1), 11);
        c.group_end(g);
    }
    c.launch_end();
    let r = s.report();
    assert_eq!(
        kinds(&r),
        [
            (
                FindingKind::DataRace,
                Some(RaceKind::ReadWrite),
                Some(Scope::IntraGroup)
            ),
            (FindingKind::UninitializedRead, None, None)
        ]
    );
    let uninit = &r.findings[1];
    assert_eq!(
        (uninit.buffer.as_deref(), uninit.offset),
        (Some("tile"), Some(8))
    );
    let f = &r.findings[0];
    assert_eq!((f.buffer.as_deref(), f.offset), (Some("tile"), Some(96)));
    let first = f.first.as_ref().unwrap();
    assert_eq!(
        (first.launch, first.location.as_ref().map(|l| l.line)),
        (1, Some(110))
    );
}
