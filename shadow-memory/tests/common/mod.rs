//! What the checker tests share: a session, a two-group launch and synthetic events, sent
//! through the `Observer` hooks as the executor would send them.

// Each test file uses a different part of these helpers and imports.
#![allow(dead_code, unused_imports)]

pub use shadowcl_interpreter::{
    Access, AccessKind, AddressSpace, AllocId, ArgBinding, BarrierArrival, Fault, Fences,
    GroupInfo, InstId, LaneAccesses, LaunchInfo, LocalAlloc, Observer, Release, SourceLoc,
    WorkItem,
};
pub use shadowcl_shadow::{
    Checks, Config, FindingKind, GroupState, HostAccess, LaunchChecker, LaunchOrder, Locations,
    RaceKind, Report, Scope, Sequential, Session, Suppressions, Unordered,
};
pub use std::sync::Arc;

pub const LOCAL: usize = 4;
pub const GROUPS: usize = 2;
pub const BUF: AllocId = AllocId(1000);
pub const OUT: AllocId = AllocId(1001);

/// Instructions from this index on store back what their work-item read there, as
/// `Program::stores_back` says of `v = A[0]; A[0] = v;`.
pub const PUT_BACK: u32 = 1000;

/// The program of the tests' launches: [`loc`] for locations, [`PUT_BACK`] for put-backs.
pub struct TestProgram;

impl Locations for TestProgram {
    fn location(&self, inst: InstId) -> Option<SourceLoc> {
        loc(inst)
    }
    fn stores_back(&self, inst: InstId) -> bool {
        inst.0 >= PUT_BACK
    }
}

pub fn loc(inst: InstId) -> Option<SourceLoc> {
    Some(SourceLoc {
        file: Arc::from("kernel.cl"),
        line: inst.0,
        column: 5,
    })
}

pub fn session(checks: Checks) -> Session {
    let s = Session::new(Config {
        checks,
        ..Config::default()
    });
    s.buffer_created(BUF, 256, true);
    s.buffer_created(OUT, 64, false);
    s
}

pub fn args() -> Vec<ArgBinding> {
    let arg = |index, name: &str, alloc, view_size| ArgBinding {
        index,
        name: name.into(),
        space: AddressSpace::Global,
        alloc: Some(alloc),
        view_offset: 0,
        view_size,
        elem_size: 4,
        never_written: false,
    };
    vec![arg(0, "data", BUF, 256), arg(1, "out", OUT, 64)]
}

pub fn locals() -> Vec<LocalAlloc> {
    vec![LocalAlloc {
        name: "tile".into(),
        size: 64,
        arg_index: None,
        elem_size: 4,
    }]
}

/// A 1-D launch of one work-group of `items` work-items.
pub fn one_group_launch<'a>(
    kernel: &'a str,
    items: u64,
    args: &'a [ArgBinding],
    local_allocs: &'a [LocalAlloc],
) -> LaunchInfo<'a> {
    LaunchInfo {
        kernel,
        work_dim: 1,
        global_offset: [0; 3],
        global_size: [items, 1, 1],
        local_size: [items, 1, 1],
        num_groups: [1, 1, 1],
        args,
        local_allocs,
    }
}

pub fn start(c: &LaunchChecker<'_>, kernel: &str) {
    start_with(c, kernel, &locals());
}

/// [`start`] with local allocations `l`.
pub fn start_with(c: &LaunchChecker<'_>, kernel: &str, l: &[LocalAlloc]) {
    let a = args();
    c.launch_start(&LaunchInfo {
        kernel,
        work_dim: 1,
        global_offset: [0; 3],
        global_size: [(LOCAL * GROUPS) as u64, 1, 1],
        local_size: [LOCAL as u64, 1, 1],
        num_groups: [GROUPS as u64, 1, 1],
        args: &a,
        local_allocs: l,
    });
}

pub fn group(c: &LaunchChecker<'_>, g: u32) -> Box<GroupState> {
    c.group_start(&GroupInfo {
        group: [g, 0, 0],
        group_linear: g as u64,
        items: LOCAL as u32,
    })
}

pub fn wi(g: u32, l: u32) -> WorkItem {
    WorkItem {
        global: [(g * LOCAL as u32 + l) as u64, 0, 0],
        local: [l, 0, 0],
        group: [g, 0, 0],
        local_linear: l,
    }
}

/// One access of `size` bytes; writes store `value` over `previous`.
#[allow(clippy::too_many_arguments)]
pub fn acc(
    c: &LaunchChecker<'_>,
    gs: &mut Box<GroupState>,
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
            copy: false,
            undefined: 0,
            component: 0,
        },
    );
}

pub fn write(
    c: &LaunchChecker<'_>,
    gs: &mut Box<GroupState>,
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

pub fn read(
    c: &LaunchChecker<'_>,
    gs: &mut Box<GroupState>,
    sp: AddressSpace,
    a: AllocId,
    off: u64,
    item: WorkItem,
    inst: u32,
) {
    acc(c, gs, sp, a, off, AccessKind::Read, item, inst, &[], &[]);
}

pub fn atomic(
    c: &LaunchChecker<'_>,
    gs: &mut Box<GroupState>,
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

pub fn barrier(c: &LaunchChecker<'_>, gs: &mut Box<GroupState>, g: u32, inst: u32, fences: Fences) {
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

pub const LOCAL_FENCE: Fences = Fences {
    local: true,
    global: false,
};
pub const GLOBAL_FENCE: Fences = Fences {
    local: false,
    global: true,
};

/// Runs `body` as one launch and returns the session's report.
pub fn launch(
    s: &Session,
    id: u64,
    concurrent: bool,
    body: impl FnOnce(&LaunchChecker<'_>),
) -> Report {
    let order: &dyn LaunchOrder = if concurrent { &Unordered } else { &Sequential };
    let c = s.launch(
        &TestProgram,
        id,
        "wg=in-order,wi=in-order,q=0,seed=0,serial",
        order,
    );
    start(&c, "k");
    body(&c);
    c.launch_end();
    s.report()
}

pub fn kinds(r: &Report) -> Vec<(FindingKind, Option<RaceKind>, Option<Scope>)> {
    r.findings
        .iter()
        .map(|f| (f.kind, f.race, f.scope))
        .collect()
}

pub use AddressSpace::{Global, Local};
