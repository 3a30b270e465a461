//! Access flags through the observer hooks: a kernel write to memory the
//! host created read-only, or a read of memory created write-only, is an `invalid-access`.

mod common;

use shadowcl_interpreter::{
    Access, AccessKind, AddressSpace, AllocId, ArgBinding, GroupInfo, InstId, LaneAccesses,
    Observer, WorkItem,
};
use shadowcl_shadow::{
    Checks, Config, FindingKind, GroupState, KernelAccess, LaunchChecker, Sequential, Session,
};

const BUF: AllocId = AllocId(2000);

fn binding(index: u32, view_offset: u64, view_size: u64) -> ArgBinding {
    ArgBinding {
        index,
        name: format!("arg{index}").into(),
        space: AddressSpace::Global,
        alloc: Some(BUF),
        view_offset,
        view_size,
        elem_size: 4,
        never_written: false,
    }
}

/// Runs one work-group of `items` work-items through arguments `args`, whose accesses `body`
/// hands the checker; returns the invalid-access findings as (message, count).
fn findings_of(
    session: &Session,
    args: &[ArgBinding],
    items: u32,
    body: impl FnOnce(&LaunchChecker<'_>, &mut Box<GroupState>),
) -> Vec<(String, u64)> {
    let locations = |_: InstId| None;
    let c = session.launch(&locations, 0, "test", &Sequential);
    c.launch_start(&common::one_group_launch("k", items as u64, args, &[]));
    let mut g = c.group_start(&GroupInfo {
        group: [0; 3],
        group_linear: 0,
        items,
    });
    body(&c, &mut g);
    c.group_end(g);
    c.launch_end();
    session
        .report()
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::InvalidAccess)
        .map(|f| (f.message.clone(), f.count))
        .collect()
}

/// Runs one work-item making `accesses` (offset, kind) through arguments `args`.
fn run(
    session: &Session,
    args: &[ArgBinding],
    accesses: &[(u64, AccessKind)],
) -> Vec<(String, u64)> {
    findings_of(session, args, 1, |c, g| {
        let item = WorkItem::default();
        for (i, &(offset, kind)) in accesses.iter().enumerate() {
            let writes = !matches!(kind, AccessKind::Read | AccessKind::AtomicRead);
            let bytes = [1u8; 4];
            c.access(
                g,
                &Access {
                    space: AddressSpace::Global,
                    alloc: BUF,
                    offset,
                    size: 4,
                    kind,
                    value: if writes { &bytes } else { &[] },
                    previous: if writes { &bytes } else { &[] },
                    item: &item,
                    inst: InstId(i as u32 % 2),
                    by_group: false,
                    copy: false,
                    undefined: 0,
                    component: 0,
                },
            );
        }
    })
}

/// Writes of one lockstep operation, lane `l` at `offsets[l]` (four lanes), handed over as
/// one operation.
fn run_lanes(session: &Session, args: &[ArgBinding], offsets: [u64; 4]) -> Vec<(String, u64)> {
    findings_of(session, args, 4, |c, g| {
        let items: Vec<WorkItem> = (0..4)
            .map(|l| WorkItem {
                global: [l as u64, 0, 0],
                local: [l, 0, 0],
                group: [0; 3],
                local_linear: l,
            })
            .collect();
        c.access_lanes(
            g,
            &LaneAccesses {
                space: AddressSpace::Global,
                alloc: BUF,
                size: 4,
                kind: AccessKind::Write,
                inst: InstId(1),
                items: &items,
                order: &[0, 1, 2, 3],
                offsets: &offsets,
                values: &[1; 4],
                previous: &[1; 4],
                component: 0,
                known_span: None,
            },
        );
    })
}

fn session() -> Session {
    let s = Session::new(Config {
        checks: Checks::default(),
        ..Config::default()
    });
    s.buffer_created(BUF, 64, true);
    s
}

#[test]
fn writes_to_read_only_memory_are_reported_once_per_instruction() {
    use AccessKind::*;
    let s = session();
    s.memory_object_created(BUF, 0, 64, KernelAccess::ReadOnly);
    let found = run(
        &s,
        &[binding(0, 0, 64)],
        &[(0, Read), (4, Write), (8, Read), (12, Write), (16, Atomic)],
    );
    // Instruction 1 wrote twice; the atomic (instruction 0) writes too.
    let mut found = found;
    found.sort();
    assert_eq!(
        found,
        [
            (
                "write to memory the host created CL_MEM_READ_ONLY".to_string(),
                1
            ),
            (
                "write to memory the host created CL_MEM_READ_ONLY".to_string(),
                2
            ),
        ]
    );
}

#[test]
fn reads_of_write_only_memory_are_reported_and_writes_are_not() {
    use AccessKind::*;
    let s = session();
    s.memory_object_created(BUF, 0, 64, KernelAccess::WriteOnly);
    assert_eq!(run(&s, &[binding(0, 0, 64)], &[(0, Write), (4, Write)]), []);
    let found = run(&s, &[binding(0, 0, 64)], &[(8, Read)]);
    assert_eq!(
        found,
        [(
            "read of memory the host created CL_MEM_WRITE_ONLY".to_string(),
            1
        )]
    );
}

#[test]
fn an_aliasing_argument_that_permits_the_access_wins() {
    use AccessKind::*;
    let s = session();
    // A read-only sub-buffer over bytes 16..32; the whole buffer is read-write.
    s.memory_object_created(BUF, 0, 64, KernelAccess::ReadWrite);
    s.memory_object_created(BUF, 16, 16, KernelAccess::ReadOnly);
    let both = [binding(0, 16, 16), binding(1, 0, 64)];
    assert_eq!(run(&s, &both, &[(16, Write)]), []);
    let sub_only = [binding(0, 16, 16)];
    assert_eq!(run(&s, &sub_only, &[(16, Write)]).len(), 1);
    // Released: the flags go with the buffer (a new buffer may get its id's storage).
    s.buffer_released(BUF);
    s.buffer_created(BUF, 64, true);
    let after = run(&s, &sub_only, &[(16, Write)]);
    assert_eq!(after, [(after[0].0.clone(), 1)], "nothing new: {after:?}");
}

#[test]
fn bounds_checks_off_report_nothing() {
    let s = Session::new(Config {
        checks: "races".parse().unwrap(),
        ..Config::default()
    });
    s.buffer_created(BUF, 64, true);
    s.memory_object_created(BUF, 0, 64, KernelAccess::ReadOnly);
    assert_eq!(run(&s, &[binding(0, 0, 64)], &[(0, AccessKind::Write)]), []);
}

#[test]
fn lanes_of_one_operation_are_held_to_the_argument_each_falls_in() {
    // Bytes 0..32 read-only, 32..64 read-write, bound as two arguments.
    let setup = || {
        let s = session();
        s.memory_object_created(BUF, 0, 32, KernelAccess::ReadOnly);
        s.memory_object_created(BUF, 32, 32, KernelAccess::ReadWrite);
        s
    };
    let args = [binding(0, 0, 32), binding(1, 32, 32)];
    // All lanes inside the read-write argument: nothing.
    assert_eq!(run_lanes(&setup(), &args, [32, 36, 40, 44]), []);
    // Lanes across both: the two in the read-only argument, one finding counted twice.
    assert_eq!(
        run_lanes(&setup(), &args, [24, 28, 32, 36]),
        [(
            "write to memory the host created CL_MEM_READ_ONLY".to_string(),
            2
        )]
    );
}
