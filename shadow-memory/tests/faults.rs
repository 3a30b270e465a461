//! The divergence, bounds and uninitialised-read checkers: synthetic events through the
//! `Observer` hooks, the exact findings expected.

mod common;

use common::*;

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
        // Item 2 passes other fence flags to barrier 94 than the others.
        for l in 0..LOCAL as u32 {
            c.barrier(
                &mut g,
                &BarrierArrival {
                    item: &wi(0, l),
                    inst: InstId(94),
                    fences: if l == 2 { GLOBAL_FENCE } else { LOCAL_FENCE },
                },
            );
        }
        c.barrier_release(&mut g, Release::AllArrived);
        c.group_end(g);
    });
    assert_eq!(kinds(&r), [(FindingKind::BarrierDivergence, None, None); 3]);
    let flags: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.message.contains("different fence flags"))
        .map(|f| f.second.as_ref().and_then(|s| s.local_id))
        .collect();
    assert_eq!(flags, [Some([2, 0, 0])]);
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
                copy: false,
                undefined: 0,
                component: 0,
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
                copy: false,
                undefined: 0,
                component: 0,
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
                copy: false,
                undefined: 0,
                component: 0,
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

/// The watchdog stops a spin loop's work-items at whichever of its instructions they were
/// at (timing decides: here one group at the loop's load, column 10, the other at its jump,
/// column 3): one hang finding for the line, counting every item of both groups.
#[test]
fn a_hang_is_one_finding_per_line() {
    let spin_line = |inst: InstId| {
        Some(SourceLoc {
            file: Arc::from("kernel.cl"),
            line: 4,
            column: if inst.0 == 7 { 10 } else { 3 },
        })
    };
    let s = session(Checks::default());
    let c = s.launch(&spin_line, 0, "serial", &Sequential);
    start(&c, "k");
    for (grp, inst) in [(0, 7), (1, 8)] {
        let mut g = group(&c, grp);
        let running: Vec<(WorkItem, InstId)> = (0..4).map(|l| (wi(grp, l), InstId(inst))).collect();
        c.stalled(&mut g, "time limit of 1.0 s exceeded", &running);
        c.group_end(g);
    }
    c.launch_end();
    drop(c);
    let r = s.report();
    assert_eq!(r.findings.len(), 1, "{}", r.render_text());
    assert_eq!(r.findings[0].kind, FindingKind::Hang);
    assert_eq!(r.findings[0].count, 8, "{}", r.render_text());
}
