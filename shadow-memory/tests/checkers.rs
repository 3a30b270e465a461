//! Each checker rule driven through the `Observer` hooks with synthetic events, as the executor
//! would send them, with the exact findings expected.

use shadowcl_interpreter::{
    Access, AccessKind, AddressSpace, AllocId, ArgBinding, BarrierArrival, Fault, Fences,
    GroupInfo, InstId, LaunchInfo, LocalAlloc, Observer, Release, SourceLoc, WorkItem,
};
use shadowcl_shadow::{
    Checks, Config, FindingKind, GroupState, LaunchChecker, LaunchOrder, RaceKind, Report, Scope,
    Sequential, Session, Unordered,
};
use std::sync::Arc;

const LOCAL: usize = 4;
const GROUPS: usize = 2;
const BUF: AllocId = AllocId(1000);
const OUT: AllocId = AllocId(1001);

fn loc(inst: InstId) -> Option<SourceLoc> {
    Some(SourceLoc {
        file: Arc::from("kernel.cl"),
        line: inst.0,
        column: 5,
    })
}

fn session(checks: Checks) -> Session {
    let s = Session::new(Config {
        checks,
        ..Config::default()
    });
    s.buffer_created(BUF, 256, true);
    s.buffer_created(OUT, 64, false);
    s
}

fn args() -> Vec<ArgBinding> {
    let arg = |index, name: &str, alloc, view_size| ArgBinding {
        index,
        name: name.into(),
        space: AddressSpace::Global,
        alloc: Some(alloc),
        view_offset: 0,
        view_size,
        elem_size: 4,
    };
    vec![arg(0, "data", BUF, 256), arg(1, "out", OUT, 64)]
}

fn locals() -> Vec<LocalAlloc> {
    vec![LocalAlloc {
        name: "tile".into(),
        size: 64,
        arg_index: None,
        elem_size: 4,
    }]
}

fn start(c: &LaunchChecker<'_>, kernel: &str) {
    let (a, l) = (args(), locals());
    c.launch_start(&LaunchInfo {
        kernel,
        work_dim: 1,
        global_offset: [0; 3],
        global_size: [(LOCAL * GROUPS) as u64, 1, 1],
        local_size: [LOCAL as u64, 1, 1],
        num_groups: [GROUPS as u64, 1, 1],
        args: &a,
        local_allocs: &l,
    });
}

fn group(c: &LaunchChecker<'_>, g: u32) -> GroupState {
    c.group_start(&GroupInfo {
        group: [g, 0, 0],
        group_linear: g as u64,
        items: LOCAL as u32,
    })
}

fn wi(g: u32, l: u32) -> WorkItem {
    WorkItem {
        global: [(g * LOCAL as u32 + l) as u64, 0, 0],
        local: [l, 0, 0],
        group: [g, 0, 0],
        local_linear: l,
    }
}

/// One access of `size` bytes; writes store `value` over `previous`.
#[allow(clippy::too_many_arguments)]
fn acc(
    c: &LaunchChecker<'_>,
    gs: &mut GroupState,
    space: AddressSpace,
    alloc: AllocId,
    offset: u64,
    kind: AccessKind,
    item: WorkItem,
    inst: u32,
    value: &[u8],
    previous: &[u8],
) {
    c.access(
        gs,
        &Access {
            space,
            alloc,
            offset,
            size: 4,
            kind,
            value,
            previous,
            item: &item,
            inst: InstId(inst),
            by_group: false,
        },
    );
}

fn write(
    c: &LaunchChecker<'_>,
    gs: &mut GroupState,
    sp: AddressSpace,
    a: AllocId,
    off: u64,
    item: WorkItem,
    inst: u32,
) {
    acc(
        c,
        gs,
        sp,
        a,
        off,
        AccessKind::Write,
        item,
        inst,
        &[1, 2, 3, 4],
        &[0, 0, 0, 0],
    );
}

fn read(
    c: &LaunchChecker<'_>,
    gs: &mut GroupState,
    sp: AddressSpace,
    a: AllocId,
    off: u64,
    item: WorkItem,
    inst: u32,
) {
    acc(c, gs, sp, a, off, AccessKind::Read, item, inst, &[], &[]);
}

fn atomic(
    c: &LaunchChecker<'_>,
    gs: &mut GroupState,
    a: AllocId,
    off: u64,
    item: WorkItem,
    inst: u32,
) {
    acc(
        c,
        gs,
        AddressSpace::Global,
        a,
        off,
        AccessKind::Atomic,
        item,
        inst,
        &[1, 0, 0, 0],
        &[0, 0, 0, 0],
    );
}

fn barrier(c: &LaunchChecker<'_>, gs: &mut GroupState, g: u32, inst: u32, fences: Fences) {
    for l in 0..LOCAL as u32 {
        c.barrier(
            gs,
            &BarrierArrival {
                item: &wi(g, l),
                inst: InstId(inst),
                fences,
            },
        );
    }
    c.barrier_release(gs, Release::AllArrived);
}

const LOCAL_FENCE: Fences = Fences {
    local: true,
    global: false,
};
const GLOBAL_FENCE: Fences = Fences {
    local: false,
    global: true,
};

/// Runs `body` as one launch and returns the session's report.
fn launch(s: &Session, id: u64, concurrent: bool, body: impl FnOnce(&LaunchChecker<'_>)) -> Report {
    let order: &dyn LaunchOrder = if concurrent { &Unordered } else { &Sequential };
    let c = s.launch(&loc, id, "wg=in-order,wi=in-order,q=0,seed=0,serial", order);
    start(&c, "k");
    body(&c);
    c.launch_end();
    s.report()
}

fn kinds(r: &Report) -> Vec<(FindingKind, Option<RaceKind>, Option<Scope>)> {
    r.findings
        .iter()
        .map(|f| (f.kind, f.race, f.scope))
        .collect()
}

use AddressSpace::{Global, Local};

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
fn barrier_divergence_both_kinds() {
    let s = session(Checks::default());
    let r = launch(&s, 0, false, |c| {
        let mut g = group(c, 0);
        // Items 0,1 at barrier 90, items 2,3 at barrier 91.
        for l in 0..LOCAL as u32 {
            let inst = InstId(if l < 2 { 90 } else { 91 });
            c.barrier(
                &mut g,
                &BarrierArrival {
                    item: &wi(0, l),
                    inst,
                    fences: LOCAL_FENCE,
                },
            );
        }
        c.barrier_release(&mut g, Release::AllArrived);
        // Item 3 finishes while the others wait at barrier 92.
        for l in 0..3 {
            c.barrier(
                &mut g,
                &BarrierArrival {
                    item: &wi(0, l),
                    inst: InstId(92),
                    fences: LOCAL_FENCE,
                },
            );
        }
        c.item_end(&mut g, &wi(0, 3));
        c.barrier_release(&mut g, Release::SomeFinished);
        // A uniform barrier is fine.
        barrier(c, &mut g, 0, 93, LOCAL_FENCE);
        c.group_end(g);
    });
    assert_eq!(
        kinds(&r),
        [
            (FindingKind::BarrierDivergence, None, None),
            (FindingKind::BarrierDivergence, None, None)
        ]
    );
    let lines: Vec<(u32, Option<u32>, String)> = r
        .findings
        .iter()
        .map(|f| {
            let second = f.second.as_ref().unwrap();
            (
                f.first.as_ref().unwrap().location.as_ref().unwrap().line,
                second.location.as_ref().map(|l| l.line),
                second.access.clone(),
            )
        })
        .collect();
    assert!(
        lines.contains(&(90, Some(91), "barrier".into())),
        "{lines:?}"
    );
    assert!(lines.contains(&(92, None, "exit".into())), "{lines:?}");
}

#[test]
fn out_of_bounds_and_invalid_pointers_come_from_faults() {
    let s = session(Checks::default());
    let r = launch(&s, 0, false, |c| {
        let mut g = group(c, 0);
        let item = wi(0, 1);
        c.fault(
            &mut g,
            &Fault::OutOfBounds {
                space: Global,
                alloc: OUT,
                offset: 64,
                size: 4,
                alloc_size: 64,
                kind: AccessKind::Write,
                item: &item,
                inst: InstId(100),
            },
        );
        c.fault(
            &mut g,
            &Fault::InvalidPointer {
                pointer: 0,
                size: 4,
                kind: AccessKind::Read,
                item: &item,
                inst: InstId(101),
            },
        );
        c.group_end(g);
    });
    assert_eq!(
        kinds(&r),
        [
            (FindingKind::OutOfBounds, None, None),
            (FindingKind::OutOfBounds, None, None)
        ]
    );
    let oob = r.findings.iter().find(|f| f.buffer.is_some()).unwrap();
    assert_eq!(
        (oob.buffer.as_deref(), oob.offset, oob.index),
        (Some("out"), Some(64), Some(16))
    );
    assert!(r
        .findings
        .iter()
        .any(|f| f.message.contains("invalid pointer 0x0")));
    // With bounds checking off, nothing is reported.
    let quiet = launch(&session("races".parse().unwrap()), 0, false, |c| {
        let mut g = group(c, 0);
        c.fault(
            &mut g,
            &Fault::InvalidPointer {
                pointer: 0,
                size: 4,
                kind: AccessKind::Read,
                item: &wi(0, 0),
                inst: InstId(101),
            },
        );
        c.group_end(g);
    });
    assert!(quiet.findings.is_empty());
}

#[test]
fn uninitialised_reads_in_local_and_global_memory_per_byte() {
    let s = session(Checks::default());
    s.buffer_written_by_host(OUT, 32, 4);
    let r = launch(&s, 0, false, |c| {
        let mut g = group(c, 0);
        // Partial vector write (bytes 0..2 of an element), then a read of exactly those bytes.
        c.access(
            &mut g,
            &Access {
                space: Local,
                alloc: AllocId::local(0),
                offset: 0,
                size: 2,
                kind: AccessKind::Write,
                value: &[1, 2],
                previous: &[0, 0],
                item: &wi(0, 0),
                inst: InstId(110),
                by_group: false,
            },
        );
        c.access(
            &mut g,
            &Access {
                space: Local,
                alloc: AllocId::local(0),
                offset: 0,
                size: 2,
                kind: AccessKind::Read,
                value: &[],
                previous: &[],
                item: &wi(0, 0),
                inst: InstId(111),
                by_group: false,
            },
        );
        // Bytes 2..4 were never written.
        c.access(
            &mut g,
            &Access {
                space: Local,
                alloc: AllocId::local(0),
                offset: 0,
                size: 4,
                kind: AccessKind::Read,
                value: &[],
                previous: &[],
                item: &wi(0, 0),
                inst: InstId(112),
                by_group: false,
            },
        );
        // Global: host-written bytes are fine, others are not.
        read(c, &mut g, Global, OUT, 32, wi(0, 0), 113);
        read(c, &mut g, Global, OUT, 36, wi(0, 0), 114);
        // Buffers created from host data are initialised.
        read(c, &mut g, Global, BUF, 36, wi(0, 0), 115);
        c.group_end(g);
    });
    assert_eq!(
        kinds(&r),
        [
            (FindingKind::UninitializedRead, None, None),
            (FindingKind::UninitializedRead, None, None)
        ]
    );
    let at: Vec<(Option<AddressSpace>, Option<i64>, u32)> = r
        .findings
        .iter()
        .map(|f| {
            (
                f.memory,
                f.offset,
                f.second.as_ref().unwrap().location.as_ref().unwrap().line,
            )
        })
        .collect();
    assert!(at.contains(&(Some(Local), Some(2), 112)), "{at:?}");
    assert!(at.contains(&(Some(Global), Some(36), 114)), "{at:?}");
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

#[test]
fn records_of_ordered_launches_count_as_reset_and_overlapping_ones_race() {
    let on = |c: &LaunchChecker<'_>, f: &dyn Fn(&LaunchChecker<'_>, &mut GroupState)| {
        start(c, "k");
        let mut g = group(c, 0);
        f(c, &mut g);
        c.group_end(g);
        c.launch_end();
    };
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
    on(&c, &|c, g| {
        write(c, g, Global, BUF, 0, wi(0, 0), 150);
        write(c, g, Global, BUF, 8, wi(0, 1), 150);
    });
    drop(c);
    let c = s.launch(&loc, 1, "serial", &orders[1]);
    on(&c, &|c, g| write(c, g, Global, BUF, 4, wi(0, 0), 151));
    drop(c);
    // Ordered after both writers: reading either element is no race, and the records of
    // launch 0 survived launch 1 (no reset of everything).
    let c = s.launch(&loc, 2, "serial", &orders[2]);
    on(&c, &|c, g| {
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
    on(&c, &|c, g| {
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
fn json_report_uses_the_contract_field_names() {
    let s = session(Checks::default());
    let r = launch(&s, 3, false, |c| {
        let mut g = group(c, 0);
        write(c, &mut g, Local, AllocId::local(0), 0, wi(0, 0), 10);
        read(c, &mut g, Local, AllocId::local(0), 0, wi(0, 1), 11);
        c.group_end(g);
    });
    let j = r.to_json();
    assert_eq!(j["tool"], "shadowcl");
    assert_eq!(j["version"], env!("CARGO_PKG_VERSION"));
    let l = &j["launches"][0];
    assert_eq!(
        (l["id"].as_u64(), l["kernel"].as_str()),
        (Some(3), Some("k"))
    );
    assert_eq!(l["global_size"], serde_json::json!([8, 1, 1]));
    assert_eq!(l["local_size"], serde_json::json!([4, 1, 1]));
    assert_eq!(l["global_offset"], serde_json::json!([0, 0, 0]));
    assert!(l["schedule"].as_str().unwrap().contains("wg=in-order"));
    let f = &j["findings"][0];
    for (k, v) in [
        ("kind", "data-race"),
        ("race", "read-write"),
        ("scope", "intra-group"),
        ("memory", "local"),
        ("kernel", "k"),
        ("buffer", "tile"),
    ] {
        assert_eq!(f[k], v, "{k}");
    }
    assert_eq!(
        (
            f["launch"].as_u64(),
            f["offset"].as_i64(),
            f["index"].as_i64(),
            f["count"].as_u64()
        ),
        (Some(3), Some(0), Some(0), Some(1))
    );
    for side in ["first", "second"] {
        let a = &f[side];
        for key in [
            "access",
            "global_id",
            "local_id",
            "group_id",
            "location",
            "source",
        ] {
            assert!(a.get(key).is_some(), "{side}.{key}");
        }
        assert_eq!(a["location"]["file"], "kernel.cl");
        assert_eq!(a["location"]["column"], 5);
    }
    assert_eq!(f["first"]["access"], "write");
    assert_eq!(f["second"]["local_id"], serde_json::json!([1, 0, 0]));
}

#[test]
fn sarif_has_the_2_1_0_structure_with_related_locations() {
    let s = session(Checks::default());
    let r = launch(&s, 0, false, |c| {
        let mut g = group(c, 0);
        write(c, &mut g, Local, AllocId::local(0), 0, wi(0, 0), 10);
        read(c, &mut g, Local, AllocId::local(0), 0, wi(0, 1), 11);
        c.group_end(g);
    });
    let v = r.to_sarif();
    assert_eq!(v["version"], "2.1.0");
    assert!(v["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "shadowcl");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert!(rules.iter().any(|r| r["id"] == "data-race"));
    let res = &run["results"][0];
    assert_eq!(
        (res["ruleId"].as_str(), res["level"].as_str()),
        (Some("data-race"), Some("error"))
    );
    assert!(res["message"]["text"]
        .as_str()
        .unwrap()
        .contains("read-write"));
    let pl = &res["locations"][0]["physicalLocation"];
    assert_eq!(pl["artifactLocation"]["uri"], "kernel.cl");
    assert_eq!(
        (
            pl["region"]["startLine"].as_u64(),
            pl["region"]["startColumn"].as_u64()
        ),
        (Some(11), Some(5))
    );
    let rel = &res["relatedLocations"][0]["physicalLocation"];
    assert_eq!(rel["region"]["startLine"], 10);
}

#[test]
fn text_names_both_accesses_and_quotes_source_lines() {
    let dir = std::env::temp_dir().join(format!("shadowcl-text-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("k.cl");
    std::fs::write(
        &file,
        "kernel void k(local int *t) {\n  t[0] = 1;\n  int x = t[0];\n}\n",
    )
    .unwrap();
    let path: Arc<str> = Arc::from(file.to_str().unwrap());
    let locate = move |i: InstId| {
        Some(SourceLoc {
            file: path.clone(),
            line: i.0,
            column: 3,
        })
    };
    let s = session(Checks::default());
    let c = s.launch(&locate, 0, "serial", &Sequential);
    start(&c, "k");
    let mut g = group(&c, 0);
    for l in 0..3 {
        write(&c, &mut g, Local, AllocId::local(0), 0, wi(0, l), 2);
        read(&c, &mut g, Local, AllocId::local(0), 0, wi(0, l + 1), 3);
    }
    c.group_end(g);
    c.launch_end();
    drop(c);
    let text = s.take_new_text();
    assert!(
        text.contains(
            "data-race (read-write, intra-group) on local memory `tile` at byte 0 (element 0)"
        ),
        "{text}"
    );
    assert!(text.contains("(3 times)"), "{text}");
    assert!(
        text.contains("| t[0] = 1;") && text.contains("| int x = t[0];"),
        "{text}"
    );
    assert!(
        text.contains("local (0,0,0)") && text.contains("local (1,0,0)"),
        "{text}"
    );
    // Already printed: the next call has nothing new.
    assert!(s.take_new_text().is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn checks_parse_from_the_environment_syntax() {
    assert_eq!("none".parse::<Checks>().unwrap(), Checks::none());
    let c: Checks = "races, uninit".parse().unwrap();
    assert!(c.races && c.uninit && !c.benign && !c.divergence && !c.bounds);
    assert!("races,bogus"
        .parse::<Checks>()
        .unwrap_err()
        .contains("bogus"));
    assert_eq!(Checks::default().list(), "races,divergence,bounds,uninit");
    let cfg = Config::from_lookup(|k| (k == "SHADOWCL_REPORT").then(|| "r.json".into())).unwrap();
    assert_eq!(
        (cfg.checks, cfg.report.as_deref()),
        (Checks::default(), Some(std::path::Path::new("r.json")))
    );
    assert!(Config::from_lookup(|k| (k == "SHADOWCL_CHECKS").then(|| "racez".into())).is_err());
}

#[test]
fn write_files_writes_json_and_sarif() {
    let dir = std::env::temp_dir().join(format!("shadowcl-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let s = Session::new(Config {
        checks: Checks::default(),
        report: Some(dir.join("r.json")),
        sarif: Some(dir.join("r.sarif")),
        ..Config::default()
    });
    s.write_files().unwrap();
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    assert_eq!(j["findings"].as_array().map(Vec::len), Some(0));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("r.sarif")).unwrap()).unwrap();
    assert_eq!(v["version"], "2.1.0");
    std::fs::remove_dir_all(&dir).unwrap();
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
    // Only the 256-byte buffer was touched: 8 bytes of shadow per byte.
    assert_eq!(s.shadow_bytes(), 256 * 8);
}
