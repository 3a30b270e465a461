//! Atomics' and fences' orders and scopes (`Observer::synchronise`): what OpenCL C 3.0 and
//! 1.2 programs built by clang-15 + llvm-spirv-15 report, under run-to-barrier and lockstep
//! schedules, and `Program::synchronises`.

mod common;

use common::*;
use shadowcl_interpreter::*;
use std::sync::{Arc, Mutex};

/// One reported synchronisation, with the work-item's local linear id.
#[derive(Clone, Debug, PartialEq)]
struct Seen {
    item: u32,
    kind: SyncKind,
    order: MemoryOrder,
    scope: MemoryScope,
    fences: Fences,
}

/// The last atomic access of a group: space, allocation, offset, size, kind, item.
type Atomic = (AddressSpace, AllocId, u64, u32, AccessKind, u32);

#[derive(Default)]
struct Group {
    seen: Vec<Seen>,
    last: Option<Atomic>,
}

/// Records every `synchronise`, and holds each atomic's event to the access reported just
/// before it.
struct Syncs {
    wants: bool,
    seen: Mutex<Vec<Seen>>,
    /// The launch's local allocations by name (their `AllocId::local` slot is the index).
    locals: Mutex<Vec<String>>,
    /// Atomic accesses reported.
    atomics: Mutex<usize>,
}

impl Syncs {
    fn new(wants: bool) -> Syncs {
        Syncs {
            wants,
            seen: Mutex::new(vec![]),
            locals: Mutex::new(vec![]),
            atomics: Mutex::new(0),
        }
    }

    /// The `AllocId` of the launch's local allocation `name`.
    fn local(&self, name: &str) -> AllocId {
        let locals = self.locals.lock().unwrap();
        let slot = locals.iter().position(|n| n == name);
        AllocId::local(slot.unwrap_or_else(|| panic!("no local {name} in {locals:?}")) as u32)
    }
}

impl Observer for Syncs {
    type Group = Group;
    fn launch_start(&self, l: &LaunchInfo<'_>) {
        *self.locals.lock().unwrap() = l.local_allocs.iter().map(|a| a.name.to_string()).collect();
    }
    fn wants_sync(&self) -> bool {
        self.wants
    }
    fn group_start(&self, _g: &GroupInfo) -> Group {
        Group::default()
    }
    fn access(&self, g: &mut Group, a: &Access<'_>) {
        if matches!(a.kind, AccessKind::Atomic | AccessKind::AtomicRead) {
            *self.atomics.lock().unwrap() += 1;
            assert!(
                !self.wants || g.last.is_none(),
                "an atomic's access without its event"
            );
            g.last = Some((
                a.space,
                a.alloc,
                a.offset,
                a.size,
                a.kind,
                a.item.local_linear,
            ));
        }
    }
    fn synchronise(&self, g: &mut Group, s: &SyncEvent<'_>) {
        if let SyncKind::Atomic {
            space,
            alloc,
            offset,
            size,
            writes,
            ..
        } = s.kind
        {
            let kind = if writes {
                AccessKind::Atomic
            } else {
                AccessKind::AtomicRead
            };
            let access = (space, alloc, offset, size, kind, s.item.local_linear);
            assert_eq!(g.last.take(), Some(access), "the access before the event");
        }
        g.seen.push(Seen {
            item: s.item.local_linear,
            kind: s.kind,
            order: s.order,
            scope: s.scope,
            fences: s.fences,
        });
    }
    fn group_end(&self, g: Group) {
        assert!(
            !self.wants || g.last.is_none(),
            "an atomic without its event"
        );
        self.seen.lock().unwrap().extend(g.seen);
    }
}

const BOTH: Fences = Fences {
    local: true,
    global: true,
};
const GLOBAL: Fences = Fences {
    local: false,
    global: true,
};
const LOCAL: Fences = Fences {
    local: true,
    global: false,
};

/// An atomic's event on 4 bytes at `offset` of `alloc`, its semantics naming no memory
/// (as llvm-spirv writes them for OpenCL C's atomics).
#[allow(clippy::too_many_arguments)]
fn atomic(
    item: u32,
    space: AddressSpace,
    alloc: AllocId,
    offset: u64,
    (reads, writes): (bool, bool),
    order: MemoryOrder,
    scope: MemoryScope,
) -> Seen {
    Seen {
        item,
        kind: SyncKind::Atomic {
            space,
            alloc,
            offset,
            size: 4,
            reads,
            writes,
        },
        order,
        scope,
        fences: BOTH,
    }
}

fn fence(item: u32, fences: Fences, order: MemoryOrder, scope: MemoryScope) -> Seen {
    Seen {
        item,
        kind: SyncKind::Fence { fences },
        order,
        scope,
        fences,
    }
}

/// `b` holding `v` again (before each schedule's run).
fn fill(b: &Buffer, v: &[i32]) {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    b.write(0, &bytes).expect("write");
}

/// A global atomic of item 0 at offset 0 of `b`.
fn global(b: &Arc<Buffer>, rw: (bool, bool), order: MemoryOrder, scope: MemoryScope) -> Seen {
    atomic(0, AddressSpace::Global, b.id(), 0, rw, order, scope)
}

/// Runs `kernel` of `p` as one group of `items` work-items under `quantum` (0: run to
/// barrier, 1: lockstep) with an observer that does or does not want synchronisation.
fn run_with(p: &Program, kernel: &str, items: u64, quantum: u32, args: Vec<ArgValue>, obs: &Syncs) {
    let schedule = Schedule {
        quantum,
        parallel: false,
        ..Schedule::default()
    };
    let l = launch(kernel, 1, [items, 1, 1], [items, 1, 1], args);
    Device::new(1)
        .run(p, &l, &schedule, obs)
        .unwrap_or_else(|e| panic!("{kernel}, quantum {quantum}: {e}"));
}

/// The events `kernel` reports under `quantum`; `expected` gets the observer (to name local
/// allocations) and must give them.
fn check(
    p: &Program,
    kernel: &str,
    items: u64,
    args: impl Fn() -> Vec<ArgValue>,
    expected: impl Fn(&Syncs, u32) -> Vec<Seen>,
) {
    for quantum in [0, 1] {
        let obs = Syncs::new(true);
        run_with(p, kernel, items, quantum, args(), &obs);
        let seen = obs.seen.lock().unwrap().clone();
        assert_eq!(seen, expected(&obs, quantum), "{kernel}, quantum {quantum}");
    }
}

const CL3: &str = r#"
kernel void release_store(volatile global atomic_int *p) {
  atomic_store_explicit(p, 1, memory_order_release, memory_scope_device);
}
kernel void acquire_load(volatile global atomic_int *p, global int *out) {
  out[0] = atomic_load_explicit(p, memory_order_acquire, memory_scope_device);
}
kernel void relaxed_add(volatile global atomic_int *p) {
  atomic_fetch_add_explicit(p, 2, memory_order_relaxed);
}
kernel void wg_exchange(volatile global atomic_int *p) {
  atomic_exchange_explicit(p, 3, memory_order_acq_rel, memory_scope_work_group);
}
kernel void cas(volatile global atomic_int *p, global int *out, int expected) {
  int e = expected;
  out[0] = atomic_compare_exchange_strong_explicit(p, &e, 7, memory_order_seq_cst,
                                                   memory_order_acquire, memory_scope_device);
  out[1] = e;
}
kernel void fences(global int *out) {
  out[0] = 1;
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device);
  mem_fence(CLK_LOCAL_MEM_FENCE);
  out[1] = 2;
}
kernel void local_add(global int *out) {
  local atomic_int counter;
  atomic_store_explicit(&counter, 5, memory_order_relaxed, memory_scope_work_group);
  out[0] = atomic_fetch_add_explicit(&counter, 1, memory_order_release, memory_scope_work_group);
}
kernel void flag(global int *out) {
  local atomic_flag f;
  out[0] = atomic_flag_test_and_set_explicit(&f, memory_order_acquire, memory_scope_work_group);
  atomic_flag_clear_explicit(&f, memory_order_release, memory_scope_work_group);
}
kernel void private_add(global int *out) {
  atomic_int mine;
  atomic_init(&mine, 1);
  atomic_fetch_add_explicit(&mine, 2, memory_order_acq_rel, memory_scope_work_item);
  out[0] = atomic_load_explicit(&mine, memory_order_relaxed, memory_scope_work_item);
}
kernel void lanes(volatile global atomic_int *p) {
  local atomic_int c;
  atomic_fetch_add_explicit(p, 1, memory_order_release, memory_scope_device);
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device);
  atomic_fetch_add_explicit(&c, 1, memory_order_relaxed, memory_scope_work_group);
}
"#;

#[test]
fn atomics_report_their_order_and_scope() {
    use MemoryOrder as O;
    use MemoryScope as S;
    for opt in ["-O0", "-O2"] {
        let p = program_std(CL3, opt, "CL3.0");
        assert!(p.synchronises(), "{opt}");
        let b = buf_i32(&[0]);
        check(
            &p,
            "release_store",
            1,
            || vec![arg(&b)],
            |_, _| vec![global(&b, (false, true), O::Release, S::Device)],
        );
        let out = buf_i32(&[0, 0]);
        check(
            &p,
            "acquire_load",
            1,
            || vec![arg(&b), arg(&out)],
            |_, _| vec![global(&b, (true, false), O::Acquire, S::Device)],
        );
        check(
            &p,
            "relaxed_add",
            1,
            || vec![arg(&b)],
            |_, _| vec![global(&b, (true, true), O::Relaxed, S::Device)],
        );
        check(
            &p,
            "wg_exchange",
            1,
            || vec![arg(&b)],
            |_, _| vec![global(&b, (true, true), O::AcqRel, S::WorkGroup)],
        );
        assert_eq!(read_i32(&b), [3], "{opt}");
    }
}

#[test]
fn a_failed_compare_exchange_reports_its_failure_order_and_no_write() {
    use MemoryOrder as O;
    use MemoryScope as S;
    for opt in ["-O0", "-O2"] {
        let p = program_std(CL3, opt, "CL3.0");
        for quantum in [0, 1] {
            // Holds 0: expecting 5 fails (and reads 0 into `e`), expecting 0 succeeds.
            let b = buf_i32(&[0]);
            let out = buf_i32(&[9, 9]);
            let obs = Syncs::new(true);
            let args = |e: i32| vec![arg(&b), arg(&out), val(e)];
            run_with(&p, "cas", 1, quantum, args(5), &obs);
            assert_eq!((read_i32(&b), read_i32(&out)), (vec![0], vec![0, 0]));
            run_with(&p, "cas", 1, quantum, args(0), &obs);
            assert_eq!((read_i32(&b), read_i32(&out)), (vec![7], vec![1, 0]));
            let seen = obs.seen.lock().unwrap().clone();
            let expected = vec![
                global(&b, (true, false), O::Acquire, S::Device),
                global(&b, (true, true), O::SeqCst, S::Device),
            ];
            assert_eq!(seen, expected, "{opt}, quantum {quantum}");
        }
    }
}

#[test]
fn fences_report_the_memory_they_order() {
    use MemoryOrder as O;
    use MemoryScope as S;
    for opt in ["-O0", "-O2"] {
        let p = program_std(CL3, opt, "CL3.0");
        let out = buf_i32(&[0, 0]);
        check(
            &p,
            "fences",
            1,
            || vec![arg(&out)],
            |_, _| {
                vec![
                    // atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, release, device)
                    fence(0, GLOBAL, O::Release, S::Device),
                    // mem_fence(CLK_LOCAL_MEM_FENCE): acq_rel at the group's scope
                    fence(0, LOCAL, O::AcqRel, S::WorkGroup),
                ]
            },
        );
        assert_eq!(read_i32(&out), [1, 2]);
    }
}

#[test]
fn atomics_on_local_memory_report_their_allocation() {
    use MemoryOrder as O;
    use MemoryScope as S;
    let local = AddressSpace::Local;
    for opt in ["-O0", "-O2"] {
        let p = program_std(CL3, opt, "CL3.0");
        let out = buf_i32(&[0]);
        check(
            &p,
            "local_add",
            1,
            || vec![arg(&out)],
            |obs, _| {
                let c = obs.local("counter");
                vec![
                    atomic(0, local, c, 0, (false, true), O::Relaxed, S::WorkGroup),
                    atomic(0, local, c, 0, (true, true), O::Release, S::WorkGroup),
                ]
            },
        );
        assert_eq!(read_i32(&out), [5]);
        // atomic_flag: a test-and-set and a clear, with their own orders.
        check(
            &p,
            "flag",
            1,
            || vec![arg(&out)],
            |obs, _| {
                let f = obs.local("f");
                vec![
                    atomic(0, local, f, 0, (true, true), O::Acquire, S::WorkGroup),
                    atomic(0, local, f, 0, (false, true), O::Release, S::WorkGroup),
                ]
            },
        );
        assert_eq!(read_i32(&out), [0]);
    }
}

#[test]
fn atomics_on_private_memory_report_nothing() {
    for opt in ["-O0", "-O2"] {
        let p = program_std(CL3, opt, "CL3.0");
        let out = buf_i32(&[0]);
        check(&p, "private_add", 1, || vec![arg(&out)], |_, _| vec![]);
        assert_eq!(read_i32(&out), [3]);
    }
}

#[test]
fn lanes_report_in_the_schedules_order() {
    use MemoryOrder as O;
    use MemoryScope as S;
    for opt in ["-O0", "-O2"] {
        let p = program_std(CL3, opt, "CL3.0");
        let b = buf_i32(&[0]);
        check(
            &p,
            "lanes",
            4,
            || vec![arg(&b)],
            |obs, quantum| {
                let c = obs.local("c");
                let ops = |i| {
                    vec![
                        atomic(
                            i,
                            AddressSpace::Global,
                            b.id(),
                            0,
                            (true, true),
                            O::Release,
                            S::Device,
                        ),
                        fence(i, GLOBAL, O::Release, S::Device),
                        atomic(
                            i,
                            AddressSpace::Local,
                            c,
                            0,
                            (true, true),
                            O::Relaxed,
                            S::WorkGroup,
                        ),
                    ]
                };
                if quantum == 0 {
                    // Each work-item to its end, one after the other.
                    (0..4).flat_map(ops).collect()
                } else {
                    // Lockstep: each op for every lane, in order.
                    let by_item: Vec<Vec<Seen>> = (0..4).map(ops).collect();
                    (0..3)
                        .flat_map(|k| by_item.iter().map(move |v| v[k].clone()))
                        .collect()
                }
            },
        );
        assert_eq!(read_i32(&b), [8]);
    }
}

const CL12: &str = r#"
kernel void legacy(volatile global int *p, volatile local int *l, global int *out) {
  atomic_inc(p);
  atomic_add(l, 2);
  out[0] = atomic_cmpxchg(p, 1, 5);
}
"#;

#[test]
fn opencl_1_2_atomics_are_relaxed() {
    use MemoryOrder as O;
    use MemoryScope as S;
    for opt in ["-O0", "-O2"] {
        let p = program(CL12, opt);
        assert!(!p.synchronises(), "{opt}");
        let b = buf_i32(&[0]);
        let out = buf_i32(&[0]);
        let args = || {
            fill(&b, &[0]);
            vec![arg(&b), ArgValue::Local(4), arg(&out)]
        };
        check(&p, "legacy", 1, args, |obs, _| {
            let l = obs.local("l");
            // llvm-spirv-15 gives the 1.2 built-ins the work-group scope.
            vec![
                global(&b, (true, true), O::Relaxed, S::WorkGroup),
                atomic(
                    0,
                    AddressSpace::Local,
                    l,
                    0,
                    (true, true),
                    O::Relaxed,
                    S::WorkGroup,
                ),
                global(&b, (true, true), O::Relaxed, S::WorkGroup),
            ]
        });
        assert_eq!(read_i32(&b), [5]);
    }
}

#[test]
fn no_events_unless_the_observer_wants_them() {
    for opt in ["-O0", "-O2"] {
        let p = program_std(CL3, opt, "CL3.0");
        for quantum in [0, 1] {
            let b = buf_i32(&[0]);
            let obs = Syncs::new(false);
            run_with(&p, "lanes", 4, quantum, vec![arg(&b)], &obs);
            let out = buf_i32(&[0, 0]);
            run_with(&p, "fences", 1, quantum, vec![arg(&out)], &obs);
            assert_eq!(
                *obs.seen.lock().unwrap(),
                vec![],
                "{opt}, quantum {quantum}"
            );
            // The accesses are still reported, and the atomics still done.
            assert_eq!(*obs.atomics.lock().unwrap(), 8);
            assert_eq!((read_i32(&b), read_i32(&out)), (vec![4], vec![1, 2]));
            // And without an observer.
            run(&p, &launch("lanes", 1, [4, 1, 1], [4, 1, 1], vec![arg(&b)]));
            assert_eq!(read_i32(&b), [8]);
        }
    }
}

/// A scope passed to a helper as a run-time value: llvm-spirv-15 converts it from OpenCL
/// C's `memory_scope` with a function it adds (`__translate_ocl_memory_scope`), which it
/// declares with a linkage type of its own.
const RUNTIME_SCOPE: &str = r#"
int cas(volatile global atomic_int *p, int c, int v, memory_scope s) {
  atomic_compare_exchange_strong_explicit(p, &c, v, memory_order_relaxed, memory_order_relaxed, s);
  return c;
}
kernel void k(volatile global atomic_int *p, global int *out) {
  out[0] = cas(p, 0, 1, memory_scope_work_group);
  out[1] = cas(p, 0, 2, memory_scope_device);
}
"#;

#[test]
fn a_run_time_scope_is_read_when_the_atomic_runs() {
    use MemoryOrder as O;
    use MemoryScope as S;
    let noinline = RUNTIME_SCOPE.replace("int cas(", "__attribute__((noinline)) int cas(");
    for (src, opt) in [
        (RUNTIME_SCOPE, "-O0"),
        (RUNTIME_SCOPE, "-O2"),
        (noinline.as_str(), "-O2"),
    ] {
        let p = program_std(src, opt, "CL3.0");
        // Relaxed, whatever the scope.
        assert!(!p.synchronises(), "{opt}");
        let b = buf_i32(&[0]);
        let out = buf_i32(&[9, 9]);
        let args = || {
            fill(&b, &[0]);
            vec![arg(&b), arg(&out)]
        };
        check(&p, "k", 1, args, |_, _| {
            vec![
                global(&b, (true, true), O::Relaxed, S::WorkGroup),
                global(&b, (true, false), O::Relaxed, S::Device),
            ]
        });
        assert_eq!((read_i32(&b), read_i32(&out)), (vec![1], vec![0, 1]));
    }
}

/// An order passed as a run-time value (`__translate_ocl_memory_order`).
const RUNTIME_ORDER: &str = r#"
__attribute__((noinline)) int ld(volatile global atomic_int *p, memory_order o) {
  return atomic_load_explicit(p, o, memory_scope_work_group);
}
kernel void k(volatile global atomic_int *p, global int *out) {
  out[0] = ld(p, memory_order_acquire);
  out[1] = ld(p, memory_order_relaxed);
}
"#;

#[test]
fn a_run_time_order_is_read_when_the_atomic_runs() {
    use MemoryOrder as O;
    use MemoryScope as S;
    for opt in ["-O0", "-O2"] {
        let p = program_std(RUNTIME_ORDER, opt, "CL3.0");
        // Semantics the loader cannot know may order.
        assert!(p.synchronises(), "{opt}");
        let b = buf_i32(&[4]);
        let out = buf_i32(&[0, 0]);
        check(
            &p,
            "k",
            1,
            || vec![arg(&b), arg(&out)],
            |_, _| {
                vec![
                    global(&b, (true, false), O::Acquire, S::WorkGroup),
                    global(&b, (true, false), O::Relaxed, S::WorkGroup),
                ]
            },
        );
        assert_eq!(read_i32(&out), [4, 4]);
    }
}

#[test]
fn a_program_synchronises_when_a_kernel_may_order_memory() {
    let cases = [
        // Relaxed atomics only.
        (
            "kernel void k(volatile global atomic_int *p) {
               atomic_fetch_add_explicit(p, 1, memory_order_relaxed);
               atomic_store_explicit(p, 1, memory_order_relaxed, memory_scope_work_group);
             }",
            false,
        ),
        // No atomics at all.
        ("kernel void k(global int *p) { p[0] = 1; }", false),
        // A release store.
        (
            "kernel void k(volatile global atomic_int *p) {
               atomic_store_explicit(p, 1, memory_order_release, memory_scope_device);
             }",
            true,
        ),
        // An atomic without an explicit order is seq_cst.
        (
            "kernel void k(volatile global atomic_int *p) { atomic_fetch_add(p, 1); }",
            true,
        ),
        // A fence alone.
        (
            "kernel void k(global int *p) { p[0] = 1; mem_fence(CLK_GLOBAL_MEM_FENCE); }",
            true,
        ),
        // An acquire in a helper a kernel calls.
        (
            "__attribute__((noinline)) int get(volatile global atomic_int *p) {
               return atomic_load_explicit(p, memory_order_acquire, memory_scope_device);
             }
             kernel void k(volatile global atomic_int *p, global int *o) { o[0] = get(p); }",
            true,
        ),
        // ... but not in a function no kernel calls.
        (
            "int get(volatile global atomic_int *p) {
               return atomic_load_explicit(p, memory_order_acquire, memory_scope_device);
             }
             kernel void k(volatile global atomic_int *p) {
               atomic_fetch_add_explicit(p, 1, memory_order_relaxed);
             }",
            false,
        ),
    ];
    for (src, synchronises) in cases {
        for opt in ["-O0", "-O2"] {
            let p = program_std(src, opt, "CL3.0");
            assert_eq!(p.synchronises(), synchronises, "{opt}: {src}");
        }
    }
}
