mod common;
use common::*;
use shadowcl_interpreter::{
    ArgValue, Buffer, Device, ExecError, Launch, NoObserver, Program, Schedule,
    DEFAULT_LOCAL_MEMORY_LIMIT,
};

const VADD: &str = r#"
__kernel void vadd(__global const float *a, __global const float *b, __global float *c, int n) {
    int i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}
"#;

#[test]
fn vector_add_o0_and_o2() {
    for opt in ["-O0", "-O2"] {
        let p = program(VADD, opt);
        let n = 1000;
        let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..n).map(|i| (2 * i) as f32 + 0.5).collect();
        let (ba, bb, bc) = (buf_f32(&a), buf_f32(&b), buf_f32(&vec![0.0; n]));
        let l = launch(
            "vadd",
            1,
            [1024, 1, 1],
            [64, 1, 1],
            vec![arg(&ba), arg(&bb), arg(&bc), val(n as i32)],
        );
        let st = run(&p, &l);
        assert_eq!(st.work_items, 1024);
        let c = read_f32(&bc);
        for i in 0..n {
            assert_eq!(c[i], a[i] + b[i], "{opt} element {i}");
        }
    }
}

/// Sizes whose products wrap 64 bits are refused, not run as an empty launch.
#[test]
fn launches_too_large_to_count_are_refused() {
    let p = program(VADD, "-O2");
    let (ba, bb, bc) = (buf_f32(&[0.0]), buf_f32(&[0.0]), buf_f32(&[0.0]));
    let args = || vec![arg(&ba), arg(&bb), arg(&bc), val(0i32)];
    let refused = |global: [u64; 3], local: [u64; 3], offset: [u64; 3]| {
        let mut l = launch("vadd", 3, global, local, args());
        l.global_offset = offset;
        let r = Device::new(0).run(&p, &l, &Schedule::default(), &NoObserver);
        matches!(r, Err(ExecError::InvalidLaunch(_)))
    };
    let big = 1u64 << 40;
    assert!(
        refused([big, big, 1], [1, 1, 1], [0; 3]),
        "group count wraps"
    );
    assert!(
        refused([1 << 33, 1 << 33, 1], [1 << 33, 1 << 33, 1], [0; 3]),
        "group size wraps"
    );
    assert!(
        refused([4, 1, 1], [4, 1, 1], [u64::MAX - 1, 0, 0]),
        "global id wraps"
    );
}

/// A launch of more work-groups than memory could list runs (group orders are generated, not
/// materialised: 2^34 groups once meant a 128 GiB vector) and ends at the watchdog.
#[test]
fn launches_of_billions_of_groups_start_at_once_in_every_order() {
    use shadowcl_interpreter::Order;
    let p = program(VADD, "-O2");
    let (ba, bb, bc) = (buf_f32(&[0.0]), buf_f32(&[0.0]), buf_f32(&[0.0]));
    let l = launch(
        "vadd",
        1,
        [1 << 34, 1, 1],
        [1, 1, 1],
        vec![arg(&ba), arg(&bb), arg(&bc), val(1i32)],
    );
    for wg_order in [Order::InOrder, Order::Reverse, Order::Random] {
        let s = Schedule {
            wg_order,
            ..Schedule::default()
        };
        let r = Device::new(2)
            .with_instruction_limit(100_000)
            .run(&p, &l, &s, &NoObserver);
        assert!(
            matches!(&r, Err(ExecError::Aborted(m)) if m.contains("instruction limit")),
            "{wg_order:?}: {r:?}"
        );
    }
    // The time limit too, though no single group runs long enough to be looked at.
    let r = Device::new(2)
        .with_time_limit(std::time::Duration::from_millis(300))
        .run(&p, &l, &Schedule::default(), &NoObserver);
    assert!(
        matches!(&r, Err(ExecError::Aborted(m)) if m.contains("time limit")),
        "{r:?}"
    );
}

/// Local memory past the device's limit is refused before anything is allocated: found by
/// the fuzz smoke test, where a module-scope `__local` array of 73 GB aborted the process.
#[test]
fn local_memory_past_the_limit_is_refused() {
    let src = r#"
        __kernel void tile(__local int *scratch, __global int *out) {
            __local int fixed[1024];
            fixed[get_local_id(0)] = 1;
            scratch[get_local_id(0)] = 2;
            barrier(CLK_LOCAL_MEM_FENCE);
            out[get_global_id(0)] = fixed[0] + scratch[0];
        }"#;
    let p = program(src, "-O0");
    let out = Buffer::new(16).unwrap();
    let run = |device: Device, scratch: u64| {
        let l = launch(
            "tile",
            1,
            [4, 1, 1],
            [4, 1, 1],
            vec![ArgValue::Local(scratch), arg(&out)],
        );
        device.run(&p, &l, &Schedule::default(), &NoObserver)
    };
    // 4 KiB of static local memory plus the argument.
    assert!(run(Device::new(1), 1 << 20).is_ok());
    match run(Device::new(1), DEFAULT_LOCAL_MEMORY_LIMIT) {
        Err(ExecError::InvalidLaunch(m)) => assert!(m.contains("local memory"), "{m}"),
        other => panic!("expected a refused launch, got {other:?}"),
    }
    let small = || Device::new(1).with_local_memory_limit(8 << 10);
    assert!(run(small(), 4 << 10).is_ok());
    assert!(matches!(
        run(small(), (4 << 10) + 1),
        Err(ExecError::InvalidLaunch(_))
    ));
    // A size whose sum with the static memory wraps is refused, not allocated.
    assert!(matches!(
        run(Device::new(1), u64::MAX - 100),
        Err(ExecError::InvalidLaunch(_))
    ));
}

/// A copy past the end of memory is one fault and stops there, whatever its length: found by
/// the fuzz smoke test, where an async copy of 2^32 elements ran for minutes, one fault each.
#[test]
fn copies_stop_at_their_first_fault() {
    let src = r#"
        __kernel void stage(__global const int *src, __global int *dst, int n) {
            __local int tile[16];
            event_t e = async_work_group_copy(tile, src, (size_t)n, 0);
            wait_group_events(1, &e);
            dst[get_local_id(0)] = tile[get_local_id(0)];
        }"#;
    let p = program(src, "-O0");
    let (s, d) = (Buffer::new(64).unwrap(), Buffer::new(64).unwrap());
    let l = launch(
        "stage",
        1,
        [16, 1, 1],
        [16, 1, 1],
        vec![arg(&s), arg(&d), val(i32::MAX)],
    );
    let rec = Recorder::default();
    let r = Device::new(1).run(&p, &l, &Schedule::default(), &rec);
    assert!(r.is_ok(), "{r:?}");
    let faults = rec
        .take()
        .into_iter()
        .filter(|e| matches!(e, Ev::Fault(_)))
        .count();
    assert_eq!(faults, 1, "one fault for the whole copy");
}

/// The watchdog: a kernel that spins on a value nobody changes ends at
/// the time limit with an error under every schedule, instead of hanging the application;
/// the other work-groups stop with it.
#[test]
fn spinning_kernels_end_at_the_time_limit() {
    let src = r#"
        __kernel void spin(__global volatile int *flag, __global int *out) {
            int i = 0;
            while (flag[0] == 0) i++;
            out[get_global_id(0)] = i;
        }"#;
    let p = program(src, "-O2");
    let flag = buf_i32(&[0]);
    let out = buf_i32(&[0; 8]);
    let limit = std::time::Duration::from_millis(300);
    for (quantum, parallel) in [(0, true), (1, false), (3, true)] {
        let l = launch("spin", 1, [8, 1, 1], [4, 1, 1], vec![arg(&flag), arg(&out)]);
        let schedule = Schedule {
            quantum,
            parallel,
            ..Schedule::default()
        };
        let started = std::time::Instant::now();
        let r = Device::new(2)
            .with_time_limit(limit)
            .run(&p, &l, &schedule, &NoObserver);
        match r {
            Err(ExecError::Aborted(m)) => assert!(m.contains("time limit"), "{m}"),
            other => panic!("quantum {quantum}: expected the watchdog, got {other:?}"),
        }
        // Generous: the point is that it ends, not how promptly on a loaded machine.
        assert!(started.elapsed() < limit * 40, "quantum {quantum}");
    }
    // A kernel that ends is not touched by the limit.
    let flag = buf_i32(&[1]);
    let l = launch("spin", 1, [8, 1, 1], [4, 1, 1], vec![arg(&flag), arg(&out)]);
    assert!(Device::new(1)
        .with_time_limit(limit)
        .run(&p, &l, &Schedule::default(), &NoObserver)
        .is_ok());
}

/// A loop with a barrier in it ends every turn at the barrier, never at a turn budget: the
/// watchdog must still end it (found by the launch fuzz target: such a kernel ran forever
/// under an instruction limit).
#[test]
fn barrier_loops_end_at_the_limits() {
    let src = r#"
        __kernel void churn(__global volatile int *flag, __local int *t) {
            while (flag[0] == 0) {
                t[get_local_id(0)] = 1;
                barrier(CLK_LOCAL_MEM_FENCE);
            }
        }"#;
    let p = program(src, "-O2");
    let flag = buf_i32(&[0]);
    for quantum in [0, 1] {
        let l = launch(
            "churn",
            1,
            [8, 1, 1],
            [4, 1, 1],
            vec![arg(&flag), ArgValue::Local(16)],
        );
        let schedule = Schedule {
            quantum,
            ..Schedule::default()
        };
        let r =
            Device::new(2)
                .with_instruction_limit(1_000_000)
                .run(&p, &l, &schedule, &NoObserver);
        assert!(
            matches!(&r, Err(ExecError::Aborted(m)) if m.contains("instruction limit")),
            "quantum {quantum}: {r:?}"
        );
        let r = Device::new(2)
            .with_time_limit(std::time::Duration::from_millis(200))
            .run(&p, &l, &schedule, &NoObserver);
        assert!(
            matches!(&r, Err(ExecError::Aborted(m)) if m.contains("time limit")),
            "quantum {quantum}: {r:?}"
        );
    }
}

/// The watchdog tells the observer which work-items had not finished and where they were:
/// at the spinning loop, under run-to-barrier, lockstep and a small quantum.
#[test]
fn stalled_work_items_are_named_at_their_lines() {
    use shadowcl_interpreter::{GroupInfo, InstId, Observer, Program, WorkItem};
    use std::sync::Mutex;
    struct Stalls<'p> {
        program: &'p Program,
        seen: Mutex<Vec<(u64, u32, String)>>,
    }
    impl Observer for Stalls<'_> {
        type Group = ();
        fn group_start(&self, _g: &GroupInfo) {}
        fn stalled(&self, _g: &mut (), why: &str, running: &[(WorkItem, InstId)]) {
            let mut seen = self.seen.lock().unwrap();
            for (w, inst) in running {
                // An op the compiler gave no line (a loop header's phi) is at the next line.
                let line = (inst.0..inst.0 + 16)
                    .find_map(|i| self.program.location(InstId(i)))
                    .map_or(0, |l| l.line);
                seen.push((w.global[0], line, why.to_string()));
            }
        }
    }
    let src = r#"
        __kernel void spin(__global volatile int *flag, __global int *out) {
            int i = 0;
            while (flag[0] == 0) i++;
            out[get_global_id(0)] = i;
        }"#;
    let p = program(src, "-O2");
    let (flag, out) = (buf_i32(&[0]), buf_i32(&[0; 8]));
    for (quantum, parallel) in [(0, true), (1, false), (3, true)] {
        let l = launch("spin", 1, [8, 1, 1], [4, 1, 1], vec![arg(&flag), arg(&out)]);
        let schedule = Schedule {
            quantum,
            parallel,
            ..Schedule::default()
        };
        let obs = Stalls {
            program: &p,
            seen: Mutex::new(Vec::new()),
        };
        let r = Device::new(2)
            .with_time_limit(std::time::Duration::from_millis(200))
            .run(&p, &l, &schedule, &obs);
        assert!(matches!(r, Err(ExecError::Aborted(_))), "quantum {quantum}");
        let mut seen = obs.seen.into_inner().unwrap();
        seen.sort();
        // A group that had not started has no items running; each that had, all four.
        assert!(matches!(seen.len(), 4 | 8), "quantum {quantum}: {seen:?}");
        for (id, line, why) in &seen {
            assert_eq!(
                *line, 4,
                "quantum {quantum}: item {id} at the loop: {seen:?}"
            );
            assert!(why.contains("time limit"), "{why}");
        }
    }
}

/// A work-item's private memory is bounded: a private array past the limit ends the launch
/// with a message instead of allocating gigabytes per work-item.
#[test]
fn private_memory_past_the_limit_ends_the_launch() {
    let src = r#"
    __kernel void k(__global int *out, int i) {
        volatile char big[1 << 24];
        big[i] = 3;
        out[0] = big[i];
    }"#;
    for opt in ["-cl-opt-disable", "-O2"] {
        let p = program(src, opt);
        let out = buf_i32(&[0]);
        let l = launch("k", 1, [64, 1, 1], [64, 1, 1], vec![arg(&out), val(5i32)]);
        let r = Device::new(1).run(&p, &l, &Schedule::default(), &NoObserver);
        assert!(
            matches!(&r, Err(ExecError::Aborted(m)) if m.contains("private memory of a work-item past 4 MiB")),
            "{opt}: {r:?}"
        );
    }
}

/// `Device::groups` counts every group of a launch as started and, once it returns, as done,
/// also the groups an aborted launch never ran (a progress display must see it end).
#[test]
fn group_counts_reach_the_total_also_when_a_launch_aborts() {
    use shadowcl_interpreter::GroupCounts;
    let p = program(VADD, "-O2");
    let (ba, bb, bc) = (
        buf_f32(&[0.0; 64]),
        buf_f32(&[0.0; 64]),
        buf_f32(&[0.0; 64]),
    );
    let args = || vec![arg(&ba), arg(&bb), arg(&bc), val(64i32)];
    let device = Device::new(2);
    assert_eq!(device.groups(), GroupCounts::default());
    let l = launch("vadd", 1, [64, 1, 1], [4, 1, 1], args());
    device
        .run(&p, &l, &Schedule::default(), &NoObserver)
        .unwrap();
    assert_eq!(
        device.groups(),
        GroupCounts {
            started: 16,
            done: 16
        }
    );

    let limited = Device::new(2).with_instruction_limit(10_000);
    let huge = launch("vadd", 1, [1 << 30, 1, 1], [1, 1, 1], args());
    let r = limited.run(&p, &huge, &Schedule::default(), &NoObserver);
    assert!(matches!(r, Err(ExecError::Aborted(_))), "{r:?}");
    let c = limited.groups();
    assert_eq!((c.started, c.done), (1 << 30, 1 << 30));
}

/// Runs `l` on one worker under quantum `quantum`, recording: the accesses and faults
/// (sorted), and the recorder, which holds what reached the observer whole.
fn record_run(p: &Program, l: &Launch, quantum: u32) -> (Vec<String>, Recorder) {
    let rec = Recorder::default();
    let s = Schedule {
        quantum,
        ..Schedule::default()
    };
    let r = Device::new(1).run(p, l, &s, &rec);
    assert!(r.is_ok(), "{r:?}");
    let mut events: Vec<String> = rec
        .take()
        .iter()
        .filter(|e| matches!(e, Ev::Access { .. } | Ev::Fault(_)))
        .map(|e| format!("{e:?}"))
        .collect();
    events.sort();
    (events, rec)
}

/// [`record_run`]: `out`'s floats, the accesses and faults, and how many lockstep operations
/// reached the observer whole.
fn recorded(p: &Program, l: &Launch, quantum: u32, out: &Buffer) -> (Vec<f32>, Vec<String>, usize) {
    let (events, rec) = record_run(p, l, quantum);
    let ops = rec.lane_ops.load(std::sync::atomic::Ordering::Relaxed);
    (read_f32(out), events, ops)
}

/// Under lockstep, a load or store whose lanes stay in one allocation reaches the observer as
/// one operation (`access_lanes`), vectors component by component; the
/// accesses and results are those of the per-item schedule, and a lane out of bounds still
/// gets its fault.
#[test]
fn lockstep_hands_over_whole_operations_with_the_same_accesses() {
    let src = r#"
        __kernel void k(__global const float4 *a, __global const float *b,
                        __global float *c, __local float *t, int past) {
            size_t i = get_global_id(0), l = get_local_id(0), n = get_local_size(0);
            t[l] = b[i];
            barrier(CLK_LOCAL_MEM_FENCE);
            float4 v = a[i];
            c[i] = v.x + v.y + v.z + v.w + t[(l + 1) % n];
            if (past) c[i + past] = 1.0f;
        }"#;
    let p = program(src, "-O2");
    // One set of buffers, so that both schedules name the same allocations.
    let a = buf_f32(&(0..64).map(|x| x as f32).collect::<Vec<_>>());
    let b = buf_f32(&(0..16).map(|x| 100.0 + x as f32).collect::<Vec<_>>());
    let c = Buffer::new(64).unwrap();
    let run_with = |quantum: u32, past: i32| {
        let args = vec![arg(&a), arg(&b), arg(&c), ArgValue::Local(32), val(past)];
        recorded(
            &p,
            &launch("k", 1, [16, 1, 1], [8, 1, 1], args),
            quantum,
            &c,
        )
    };
    for past in [0, 10] {
        let (out_items, by_item, ops_items) = run_with(0, past);
        let (out_lanes, by_lane, ops_lanes) = run_with(1, past);
        assert_eq!(
            ops_items, 0,
            "the per-item schedule reports access by access"
        );
        // Per group: b, t, a (4 components), t, c; the out-of-bounds store goes lane by lane.
        assert_eq!(ops_lanes, 2 * 8, "past {past}");
        assert_eq!(out_items, out_lanes, "past {past}");
        assert_eq!(by_item, by_lane, "past {past}");
        let faults = by_lane.iter().filter(|e| e.starts_with("Fault")).count();
        assert_eq!(faults, if past > 0 { 10 } else { 0 }, "past {past}");
    }
}

/// Lockstep reads of local memory whose lanes read two local arrays, or one lane past the
/// end, take the per-lane path: their loads, accesses and fault are those of the per-item
/// schedule.
#[test]
fn lockstep_local_reads_over_two_arrays_or_past_the_end_load_what_items_load() {
    let src = r#"
        __kernel void k(__global float *c, __local float *t, int past) {
            __local float u[8];
            size_t i = get_global_id(0), l = get_local_id(0);
            t[l] = 10.0f + l;
            u[l] = 20.0f + l;
            barrier(CLK_LOCAL_MEM_FENCE);
            __local float *q = (l & 1) ? t : u;
            float x = q[(l + 1) % 8];
            float y = t[(l + 1) % 8 + (l == 3 ? past : 0)];
            c[i] = x + y + t[7 - l];
        }"#;
    // At -O0 every variable is private memory, which lockstep hands to the per-item path.
    let opt = "-O2";
    {
        let p = program(src, opt);
        let c = Buffer::new(64).unwrap();
        let run_with = |quantum: u32, past: i32| {
            let args = vec![arg(&c), ArgValue::Local(32), val(past)];
            recorded(
                &p,
                &launch("k", 1, [16, 1, 1], [8, 1, 1], args),
                quantum,
                &c,
            )
        };
        for past in [0, 8] {
            let (out_items, by_item, _) = run_with(0, past);
            let (out_lanes, by_lane, ops_lanes) = run_with(1, past);
            assert!(ops_lanes > 0, "{opt}, past {past}: no whole operation");
            assert_eq!(out_items, out_lanes, "{opt}, past {past}");
            assert_eq!(by_item, by_lane, "{opt}, past {past}");
            let want: Vec<f32> = (0..16)
                .map(|i| {
                    let l = i % 8;
                    let x = if l & 1 == 1 { 10.0 } else { 20.0 } + ((l + 1) % 8) as f32;
                    let y = if l == 3 && past > 0 {
                        0.0
                    } else {
                        10.0 + ((l + 1) % 8) as f32
                    };
                    x + y + 10.0 + (7 - l) as f32
                })
                .collect();
            assert_eq!(out_lanes, want, "{opt}, past {past}");
        }
    }
}

/// The default schedule (`Schedule::AUTO`): lockstep while a group's work-items agree, the
/// per-item executor from where a loop keeps them apart, lockstep again once a barrier
/// brings them together; the accesses and results are those of run-to-barrier.
#[test]
fn auto_runs_lockstep_where_the_items_agree() {
    let src = r#"
        __kernel void k(__global const float *in, __global float *out, __local float *t) {
            size_t i = get_global_id(0), l = get_local_id(0);
            float s = in[i];
            for (int j = 0; j < (int)(l & 7) * 4; j++) s += in[(i + j) % 16];
            t[l] = s;
            barrier(CLK_LOCAL_MEM_FENCE);
            out[i] = t[(l + 1) % 8];
        }"#;
    let p = program(src, "-O2");
    let input = buf_f32(&(0..16).map(|x| x as f32).collect::<Vec<_>>());
    let out = Buffer::new(64).unwrap();
    let run_with = |quantum: u32| {
        let args = vec![arg(&input), arg(&out), ArgValue::Local(32)];
        recorded(
            &p,
            &launch("k", 1, [16, 1, 1], [8, 1, 1], args),
            quantum,
            &out,
        )
    };
    assert_eq!(Schedule::default().quantum, Schedule::AUTO);
    let (out_items, by_item, _) = run_with(0);
    let (out_lockstep, _, ops_lockstep) = run_with(1);
    let (out_auto, by_auto, ops_auto) = run_with(Schedule::AUTO);
    assert_eq!(out_auto, out_items);
    assert_eq!(out_lockstep, out_items);
    assert_eq!(by_auto, by_item);
    // Per group: `in[i]` before the loop, `t` and `out` after the barrier, in lockstep; the
    // loop's loads (up to 28 per item) by item, where lockstep would have run them in rounds.
    assert!(ops_auto >= 2 * 3, "{ops_auto}");
    assert!(ops_auto * 4 < ops_lockstep, "{ops_auto} vs {ops_lockstep}");
}

/// A kernel with private memory (a private array; at `-cl-opt-disable` every local
/// variable, and a callee's arrays freed at its return) runs in lockstep, each lane's
/// allocations its own: the same results and accesses as per item, its global and local
/// accesses handed over as whole operations. Under auto, the lanes of a loop whose trip count
/// differs go per item and come back to lockstep at the barrier, private memory and all.
#[test]
fn a_kernel_with_private_memory_runs_in_lockstep() {
    let src = r#"
        int pick(__global const int *in, size_t i) {
            int b[4];
            for (int j = 0; j < 4; j++) b[j] = in[(i * 3 + j) % 16];
            return b[in[i] & 3];
        }
        __kernel void k(__global const int *in, __global int *out, __local int *t) {
            size_t i = get_global_id(0), l = get_local_id(0);
            int a[8];
            for (int j = 0; j < 8; j++) a[j] = in[(i + j) % 16];
            for (int j = 0; j < (int)(in[i] % 7); j++) a[j & 7] += j;
            t[l] = a[in[i] & 7];
            barrier(CLK_LOCAL_MEM_FENCE);
            out[i] = t[(l + 1) % get_local_size(0)] + a[7 - (in[i] & 7)] + pick(in, i);
        }"#;
    let input = buf_i32(&(0..16).map(|x| x * 5).collect::<Vec<_>>());
    let out = Buffer::new(64).unwrap();
    for opt in ["-O2", "-cl-opt-disable"] {
        let p = program(src, opt);
        let run_with = |quantum: u32| {
            let args = vec![arg(&input), arg(&out), ArgValue::Local(32)];
            recorded(
                &p,
                &launch("k", 1, [16, 1, 1], [8, 1, 1], args),
                quantum,
                &out,
            )
        };
        let (out_items, by_item, _) = run_with(0);
        let (out_lockstep, by_lockstep, ops_lockstep) = run_with(1);
        let (out_auto, by_auto, ops_auto) = run_with(Schedule::AUTO);
        // Each item's array after the loops, and what it reads.
        let v = |k: i32| k.rem_euclid(16) * 5;
        let array = |k: i32| {
            let mut a: Vec<i32> = (0..8).map(|j| v(k + j)).collect();
            (0..v(k) % 7).for_each(|j| a[(j & 7) as usize] += j);
            a
        };
        let expect: Vec<i32> = (0..16i32)
            .map(|i| {
                let next = i / 8 * 8 + (i % 8 + 1) % 8;
                let t = array(next)[(v(next) & 7) as usize];
                let b: Vec<i32> = (0..4).map(|j| v(i * 3 + j)).collect();
                t + array(i)[(7 - (v(i) & 7)) as usize] + b[(v(i) & 3) as usize]
            })
            .collect();
        let got: Vec<i32> = out_items.iter().map(|f| f.to_bits() as i32).collect();
        assert_eq!(got, expect, "{opt}");
        assert_eq!(out_lockstep, out_items, "{opt}");
        assert_eq!(out_auto, out_items, "{opt}");
        assert_eq!(by_lockstep, by_item, "{opt}");
        assert_eq!(by_auto, by_item, "{opt}");
        // Per group: the 8 loads of `in` before the loops, and after the barrier `t` and
        // `out`, at least, as whole operations.
        assert!(ops_auto >= 2 * 10, "{opt}: {ops_auto}");
        assert!(
            ops_lockstep >= ops_auto,
            "{opt}: {ops_lockstep} vs {ops_auto}"
        );
    }
}

/// A struct argument passed by value is each work-item's private copy in lockstep too: a
/// work-item's write to its copy reaches no other item, and the kernel's accesses are the
/// per-item schedule's, handed over as whole operations.
#[test]
fn a_by_value_struct_argument_is_each_lanes_own_copy_in_lockstep() {
    let src = r#"
        typedef struct { char shift; int offset; float scale; } params;
        __kernel void k(params p, __global const int *in, __global int *out) {
            size_t i = get_global_id(0);
            if (i % 3 == 0) p.offset += 1000;
            out[i] = ((in[i] << p.shift) + p.offset) * (int)p.scale;
        }"#;
    let input = buf_i32(&(0..16).collect::<Vec<_>>());
    let out = Buffer::new(64).unwrap();
    // shift 3, offset -7, scale 2.0, padding after `shift`.
    let mut bytes = vec![3u8, 0, 0, 0];
    bytes.extend((-7i32).to_le_bytes());
    bytes.extend(2.0f32.to_le_bytes());
    for opt in ["-O2", "-cl-opt-disable"] {
        let p = program(src, opt);
        let run_with = |quantum: u32| {
            let args = vec![ArgValue::Bytes(bytes.clone()), arg(&input), arg(&out)];
            recorded(
                &p,
                &launch("k", 1, [16, 1, 1], [8, 1, 1], args),
                quantum,
                &out,
            )
        };
        let (out_items, by_item, _) = run_with(0);
        let expect: Vec<i32> = (0..16)
            .map(|i| ((i << 3) - 7 + if i % 3 == 0 { 1000 } else { 0 }) * 2)
            .collect();
        let got: Vec<i32> = out_items.iter().map(|f| f.to_bits() as i32).collect();
        assert_eq!(got, expect, "{opt}");
        for quantum in [1, Schedule::AUTO] {
            let (out_q, by_q, ops_q) = run_with(quantum);
            assert_eq!(out_q, out_items, "{opt} quantum {quantum}");
            assert_eq!(by_q, by_item, "{opt} quantum {quantum}");
            // `in` and `out` of both groups at least (before the lanes part ways).
            assert!(ops_q >= 2, "{opt} quantum {quantum}: {ops_q}");
        }
    }
}

/// Under `Schedule::AUTO`, work-groups of one work-item run per item: lockstep would have no
/// lanes to run together, only its set-up to pay (CTS basic's image tests launch millions
/// of such groups). Groups of two run in lockstep.
#[test]
fn auto_runs_single_item_groups_per_item() {
    let p = program(
        r#"__kernel void k(__global const int *in, __global int *out) {
               size_t i = get_global_id(0);
               out[i] = in[i] * 3;
           }"#,
        "-O2",
    );
    let input = buf_i32(&(0..16).collect::<Vec<_>>());
    let out = Buffer::new(64).unwrap();
    let run_with = |quantum: u32, local: u64| {
        let args = vec![arg(&input), arg(&out)];
        recorded(
            &p,
            &launch("k", 1, [16, 1, 1], [local, 1, 1], args),
            quantum,
            &out,
        )
    };
    let (out_items, by_item, _) = run_with(0, 1);
    let (out_auto, by_auto, ops_auto) = run_with(Schedule::AUTO, 1);
    assert_eq!(out_auto, out_items);
    assert_eq!(by_auto, by_item);
    assert_eq!(ops_auto, 0, "whole lockstep operations of one lane");
    // Eight groups of two: the load and the store of each in lockstep.
    let (out_pairs, _, ops_pairs) = run_with(Schedule::AUTO, 2);
    assert_eq!(out_pairs, out_items);
    assert_eq!(ops_pairs, 8 * 2);
}

/// Lockstep runs vector moves, `any`, dot products, dynamic vector indexing and struct copies
/// (a memcpy) lane by lane, the per-item executor's code on each lane's operands, instead of
/// handing the group over at them: under auto every buffer of this kernel is accessed in whole
/// operations, with the accesses and results of run-to-barrier (CTS image kernels
/// handed every group over at their first vector move).
#[test]
fn lockstep_runs_vector_and_aggregate_ops_lane_by_lane() {
    let src = r#"
        typedef struct { float a; int b; float c; } S;
        __kernel void k(__global const float4 *in, __global const S *s, __global S *so,
                        __global float *out) {
            size_t i = get_global_id(0);
            float4 v = in[i];
            float4 w = shuffle(v, (uint4)(i & 3, 2, 1, 0));
            int4 m = isless(v, w);
            S t = s[i];
            t.b += (int)i;
            so[i] = t;
            so[i + 16] = s[i ^ 1];
            float2 c = (float2)(v.x, w.y);
            out[i] = dot(v, w) + (any(m) ? 1.0f : 0.0f) + w[i & 3] + so[i].c + c[(i >> 1) & 1];
        }"#;
    let input = buf_f32(&(0..64).map(|x| (x * 7 % 11) as f32).collect::<Vec<_>>());
    let structs = Buffer::new(16 * 12).unwrap();
    structs
        .write(
            0,
            &(0..48)
                .flat_map(|x: u32| x.to_le_bytes())
                .collect::<Vec<_>>(),
        )
        .unwrap();
    let copies = Buffer::new(32 * 12).unwrap();
    let out = Buffer::new(64).unwrap();
    // At -O0 every local is private memory, which runs per item under auto anyway.
    for opt in ["-O2", "-O1"] {
        let p = program(src, opt);
        let run_with = |quantum: u32| {
            let args = vec![arg(&input), arg(&structs), arg(&copies), arg(&out)];
            let l = launch("k", 1, [16, 1, 1], [8, 1, 1], args);
            let (events, rec) = record_run(&p, &l, quantum);
            let whole = rec.lane_allocs.into_inner().unwrap();
            (read_f32(&out), events, whole)
        };
        let (out_items, by_item, _) = run_with(0);
        let (out_auto, by_auto, whole) = run_with(Schedule::AUTO);
        let (out_lockstep, by_lockstep, _) = run_with(1);
        assert_eq!(out_auto, out_items, "{opt}");
        assert_eq!(out_lockstep, out_items, "{opt}");
        assert_eq!(by_auto, by_item, "{opt}");
        assert_eq!(by_lockstep.len(), by_item.len(), "{opt}");
        // Every buffer, the last ones accessed after the kernel's vector ops, reached the
        // observer in whole operations: no group was handed over.
        let want = [&input, &structs, &copies, &out].map(|b| b.id().0);
        assert_eq!(whole, want.into_iter().collect(), "{opt}");
        let mut want: Vec<i32> = (0..48)
            .map(|j| j + if j % 3 == 1 { j / 3 } else { 0 })
            .collect();
        want.extend((0..48).map(|j| ((j / 3) ^ 1) * 3 + j % 3));
        assert_eq!(read_i32(&copies), want, "{opt}");
    }
}

/// Under auto, a few lanes' early `return` behind a chain of compares (a stencil's border
/// items) keeps the group in lockstep however many rounds the lanes spend apart, while a loop
/// whose trip count differs between lanes hands the group to the per-item executor: the
/// interior's store, after the border lanes left, reaches the observer whole; the store of
/// the lanes that loop longest comes item by item. Results and accesses are those of run-to-barrier.
#[test]
fn auto_keeps_an_early_return_in_lockstep_and_hands_a_ragged_loop_over() {
    let src = r#"
        __kernel void border(__global const float *in, __global float *edge,
                             __global float *mid, int n) {
            int x = get_global_id(0);
            if (x == 0 || x == n - 1 || in[x] > 10.0f || x == n / 2 || (x * 7) % 16 == 3
                || x * x == 100) {
                edge[x] = in[x] * 2.0f + 1.0f;
                return;
            }
            mid[x] = 0.25f * (in[x - 1] + in[x + 1]) + 0.5f * in[x];
        }
        __kernel void ragged(__global const float *in, __global float *edge,
                             __global float *mid, int n) {
            int x = get_global_id(0);
            float s = 0.0f;
            for (int j = 0; j < (x & 7) * 4; j++) s += in[(x + j) % n];
            if ((x & 7) == 7) edge[x] = s; else mid[x] = s;
        }"#;
    let p = program(src, "-O2");
    let input = buf_f32(&(0..64).map(|x| (x * 5 % 13) as f32).collect::<Vec<_>>());
    let (edge, mid) = (Buffer::new(64 * 4).unwrap(), Buffer::new(64 * 4).unwrap());
    for kernel in ["border", "ragged"] {
        let run_with = |quantum: u32| {
            for b in [&edge, &mid] {
                b.write(0, &[0; 64 * 4]).unwrap();
            }
            let args = vec![arg(&input), arg(&edge), arg(&mid), val(64)];
            let l = launch(kernel, 1, [64, 1, 1], [16, 1, 1], args);
            let (events, rec) = record_run(&p, &l, quantum);
            let whole = rec.lane_allocs.into_inner().unwrap();
            (read_f32(&edge), read_f32(&mid), events, whole)
        };
        let (edge_items, mid_items, by_item, _) = run_with(0);
        let (edge_auto, mid_auto, by_auto, whole) = run_with(Schedule::AUTO);
        assert_eq!((edge_auto, mid_auto), (edge_items, mid_items), "{kernel}");
        assert_eq!(by_auto, by_item, "{kernel}");
        // The border's interior, and the ragged loop's longest-running lanes.
        let (stored, whole_wanted) = match kernel {
            "border" => (&mid, true),
            _ => (&edge, false),
        };
        assert_eq!(
            whole.contains(&stored.id().0),
            whole_wanted,
            "{kernel}: {whole:?}"
        );
    }
}

/// A worker keeps its scratch (item states, lockstep lanes, local memory) from one launch to
/// the next: a launch of another kernel, with other frames, private arrays and local memory,
/// must start from nothing the last one left, under lockstep and per item.
#[test]
fn launches_of_different_kernels_share_a_workers_scratch() {
    let src = r#"
    __kernel void wide(__global int *out, __local int *tmp) {
        int l = get_local_id(0), p[24];
        for (int k = 0; k < 24; k++) p[k] = l * k;
        tmp[l] = p[l % 24] + p[(l + 5) % 24];
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = tmp[(l + 1) % get_local_size(0)];
    }
    __kernel void narrow(__global int *out) {
        out[get_global_id(0)] += 1;
    }"#;
    let p = program(src, "-O2");
    let expect = |g: usize| {
        let l = (g % 64 + 1) % 64;
        (l * (l % 24) + l * ((l + 5) % 24)) as i32
    };
    for quantum in [1, 0] {
        let schedule = Schedule {
            quantum,
            ..Schedule::default()
        };
        for round in 0..3 {
            let out = buf_i32(&[0; 256]);
            let wide = launch(
                "wide",
                1,
                [256, 1, 1],
                [64, 1, 1],
                vec![arg(&out), ArgValue::Local(64 * 4)],
            );
            let narrow = launch("narrow", 1, [256, 1, 1], [32, 1, 1], vec![arg(&out)]);
            for l in [&narrow, &wide, &narrow] {
                Device::new(1).run(&p, l, &schedule, &NoObserver).unwrap();
            }
            let got = read_i32(&out);
            for (g, v) in got.iter().enumerate() {
                assert_eq!(
                    *v,
                    expect(g) + 1,
                    "quantum {quantum} round {round} item {g}"
                );
            }
        }
    }
}
