//! Limits instead of aborts: past the shadow budget, or past the work-items
//! race records tell apart, checking degrades and the report says so.

use shadowcl_interpreter::{
    Access, AccessKind, AddressSpace, AllocId, ArgBinding, GroupInfo, InstId, LaunchInfo, Observer,
    WorkItem,
};
use shadowcl_shadow::{Config, FindingKind, Sequential, Session};

const BUF: AllocId = AllocId(3000);

fn item(local: u32) -> WorkItem {
    WorkItem {
        global: [local as u64, 0, 0],
        local: [local, 0, 0],
        group: [0; 3],
        local_linear: local,
    }
}

/// One launch of `groups` groups of 64 items; group 0's items 0 and 1 write each of
/// `offsets` (a write-write race on each).
fn launch(session: &Session, id: u64, groups: u64, offsets: &[u64]) {
    let locations = |_: InstId| None;
    let c = session.launch(&locations, id, "test", &Sequential);
    let args = [ArgBinding {
        index: 0,
        name: "data".into(),
        space: AddressSpace::Global,
        alloc: Some(BUF),
        view_offset: 0,
        view_size: 1 << 16,
        elem_size: 4,
        never_written: false,
    }];
    c.launch_start(&LaunchInfo {
        kernel: "k",
        work_dim: 1,
        global_offset: [0; 3],
        global_size: [groups * 64, 1, 1],
        local_size: [64, 1, 1],
        num_groups: [groups, 1, 1],
        args: &args,
        local_allocs: &[],
    });
    let mut g = c.group_start(&GroupInfo {
        group: [0; 3],
        group_linear: 0,
        items: 64,
    });
    for &offset in offsets {
        for local in 0..2 {
            let (v, p) = ([local as u8 + 1; 4], [0u8; 4]);
            c.access(
                &mut g,
                &Access {
                    space: AddressSpace::Global,
                    alloc: BUF,
                    offset,
                    size: 4,
                    kind: AccessKind::Write,
                    value: &v,
                    previous: &p,
                    item: &item(local),
                    inst: InstId(local),
                    by_group: false,
                    copy: false,
                    undefined: 0,
                    component: 0,
                },
            );
        }
    }
    c.group_end(g);
    c.launch_end();
}

fn kinds(session: &Session) -> Vec<(FindingKind, Option<String>, u64)> {
    session
        .report()
        .findings
        .iter()
        .map(|f| (f.kind, f.buffer.clone(), f.count))
        .collect()
}

#[test]
fn past_the_shadow_budget_a_buffer_is_checked_in_part_and_the_report_says_so() {
    // One 4096-byte page of word records (8 bytes per 4 bytes) fits, a second does not.
    let s = Session::new(Config {
        shadow_limit: Some(4096 * 2),
        ..Config::default()
    });
    s.buffer_created(BUF, 1 << 16, true);
    launch(&s, 0, 1, &[0, 8192]);
    let found = kinds(&s);
    assert!(
        found.contains(&(FindingKind::DataRace, Some("data".into()), 1)),
        "the race inside the budget is found: {found:?}"
    );
    let degraded: Vec<_> = found
        .iter()
        .filter(|f| f.0 == FindingKind::ChecksDegraded)
        .collect();
    assert_eq!(
        degraded,
        [&(FindingKind::ChecksDegraded, Some("data".into()), 1)]
    );
    let report = s.report();
    let message = &report
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::ChecksDegraded)
        .unwrap()
        .message;
    assert!(message.contains("SHADOWCL_SHADOW_LIMIT"), "{message}");
    // Said once per buffer, not per launch.
    launch(&s, 1, 1, &[8192]);
    let again = kinds(&s);
    assert_eq!(
        again
            .iter()
            .filter(|f| f.0 == FindingKind::ChecksDegraded)
            .count(),
        1
    );
    // The budget comes back with the buffer.
    s.buffer_released(BUF);
    s.buffer_created(BUF, 1 << 16, true);
    launch(&s, 2, 1, &[8192]);
}

#[test]
fn a_launch_of_more_work_items_than_records_tell_apart_skips_races_and_says_so() {
    let s = Session::new(Config::default());
    s.buffer_created(BUF, 1 << 16, true);
    // 2^23 groups of 64 = 2^29 work-items.
    launch(&s, 0, 1 << 23, &[0]);
    let found = kinds(&s);
    assert_eq!(found, [(FindingKind::ChecksDegraded, None, 1)], "{found:?}");
    let f = &s.report().findings[0];
    assert!(f.message.contains("536870912 work-items"), "{}", f.message);
    // An ordinary launch after it is checked.
    launch(&s, 1, 4, &[0]);
    assert!(kinds(&s).iter().any(|f| f.0 == FindingKind::DataRace));
}

#[test]
fn the_shadow_limit_setting() {
    let cfg = |v: &str| {
        Config::from_lookup(|k| (k == "SHADOWCL_SHADOW_LIMIT").then(|| v.to_string()))
            .map(|c| c.shadow_limit)
    };
    assert_eq!(cfg("512M"), Ok(Some(512 << 20)));
    assert_eq!(cfg("2g"), Ok(Some(2 << 30)));
    assert_eq!(cfg("4096"), Ok(Some(4096)));
    assert_eq!(cfg("off"), Ok(Some(u64::MAX)));
    assert_eq!(cfg(""), Ok(None));
    assert!(cfg("lots")
        .unwrap_err()
        .contains("SHADOWCL_SHADOW_LIMIT=lots"));
    assert!(cfg("99999999999G").is_err(), "overflow is refused");
    assert!(shadowcl_shadow::default_shadow_limit() >= 1 << 20);
}
