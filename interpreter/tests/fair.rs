//! Fair scheduling of spin-waits: a work-group that spins, waiting for
//! what another group writes, steps aside so that group runs, under every work-group order,
//! worker count and executor, with no watchdog set. Without it these launches never end:
//! each runs on a thread of its own and fails at a generous deadline instead of hanging.

mod common;

use std::sync::mpsc;
use std::time::Duration;

use common::*;
use shadowcl_interpreter::*;

/// A correct hand-off between work-groups, as OpenCL 1.2 allows it: the producer writes the
/// data, fences, then raises the flag with an atomic; the consumer spins on an atomic read of
/// the flag, fences, then reads the data. In `chain`, group g waits for group g - 1 (group 0
/// for nobody), so every group but the first spins until the one before it is done. In
/// `gate`, one item of each consumer group spins while the others wait at a barrier.
const SRC: &str = r#"
    __kernel void handoff(__global int *data, volatile __global int *flag, __global int *out) {
        if (get_group_id(0) == 0) {
            data[0] = 42;
            mem_fence(CLK_GLOBAL_MEM_FENCE);
            atomic_xchg(flag, 1);
        } else {
            while (atomic_or(flag, 0) == 0)
                ;
            mem_fence(CLK_GLOBAL_MEM_FENCE);
            out[0] = data[0];
        }
    }

    __kernel void chain(__global int *data, volatile __global int *flags) {
        int g = get_group_id(0);
        if (g > 0) {
            while (atomic_cmpxchg(&flags[g - 1], 1, 1) != 1)
                ;
            mem_fence(CLK_GLOBAL_MEM_FENCE);
        }
        data[g] = g == 0 ? 1 : data[g - 1] * 2;
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        atomic_xchg(&flags[g], 1);
    }

    __kernel void gate(__global int *data, volatile __global int *flag, __global int *out) {
        size_t l = get_local_id(0);
        if (get_group_id(0) == 0) {
            data[l] = (int)l + 100;
            barrier(CLK_GLOBAL_MEM_FENCE);
            if (l == 0)
                atomic_xchg(flag, 1);
        } else {
            if (l == 0)
                while (atomic_or(flag, 0) == 0)
                    ;
            barrier(CLK_GLOBAL_MEM_FENCE);
            out[l] = data[l];
        }
    }
"#;

/// Every schedule the hand-off must finish under: each work-group order, one and two
/// workers, run to barrier (instructions counted or not: two interpreters) and lockstep.
fn schedules() -> Vec<(Schedule, bool)> {
    let mut v = vec![];
    for wg_order in [Order::InOrder, Order::Reverse, Order::Random] {
        for threads in [1, 2] {
            for (quantum, counted) in [(0, false), (0, true), (1, false)] {
                let seeds: &[u64] = if wg_order == Order::Random {
                    &[1, 2]
                } else {
                    &[0]
                };
                for &seed in seeds {
                    let s = Schedule {
                        wg_order,
                        quantum,
                        seed,
                        threads,
                        ..Schedule::default()
                    };
                    v.push((s, counted));
                }
            }
        }
    }
    v
}

/// Runs `check` for every optimisation level and schedule (see [`bounded`]).
fn finishes_everywhere(name: &str, check: fn(&Program, &Schedule, bool)) {
    bounded(name, move |progress| {
        for opt in ["-O0", "-O2"] {
            let p = program(SRC, opt);
            for (s, counted) in schedules() {
                progress(format!("{opt} {} counted={counted}", s.describe()));
                check(&p, &s, counted);
            }
        }
    });
}

/// Runs `body` on a thread of its own and fails when it has not finished within a generous
/// deadline (a regression would hang forever), naming the last step it reported.
fn bounded(name: &str, body: impl FnOnce(&dyn Fn(String)) + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        body(&|step| {
            let _ = tx.send(Some(step));
        });
        let _ = tx.send(None);
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(300);
    let mut last = String::from("(none yet)");
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(None) => return,
            Ok(Some(s)) => last = s,
            Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{name}: failed under {last}"),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                panic!("{name}: did not finish under {last} (a spin-wait deadlocked?)")
            }
        }
    }
}

fn device(counted: bool) -> Device {
    let d = Device::new(2);
    if counted {
        d.with_instruction_count()
    } else {
        d
    }
}

#[test]
fn a_flag_hand_off_between_two_groups_finishes_under_every_schedule() {
    finishes_everywhere("handoff", |p, s, counted| {
        let (data, flag, out) = (buf_i32(&[0]), buf_i32(&[0]), buf_i32(&[0]));
        let l = launch(
            "handoff",
            1,
            [2, 1, 1],
            [1, 1, 1],
            vec![arg(&data), arg(&flag), arg(&out)],
        );
        let r = device(counted).run(p, &l, s, &NoObserver);
        assert!(r.is_ok(), "{}: {r:?}", s.describe());
        assert_eq!(read_i32(&out), [42], "{}", s.describe());
    });
}

#[test]
fn a_chain_of_hand_offs_finishes_under_every_schedule() {
    finishes_everywhere("chain", |p, s, counted| {
        let n = 4;
        let (data, flags) = (buf_i32(&[0; 4]), buf_i32(&[0; 4]));
        let l = launch(
            "chain",
            1,
            [n, 1, 1],
            [1, 1, 1],
            vec![arg(&data), arg(&flags)],
        );
        let r = device(counted).run(p, &l, s, &NoObserver);
        assert!(r.is_ok(), "{}: {r:?}", s.describe());
        assert_eq!(read_i32(&data), [1, 2, 4, 8], "{}", s.describe());
    });
}

/// One item of the consumer group spins while its neighbours wait at a barrier (lockstep
/// diverges there); every group still starts and ends exactly once for the observer.
#[test]
fn a_hand_off_gated_by_one_item_finishes_under_every_schedule() {
    finishes_everywhere("gate", |p, s, counted| {
        let (data, flag, out) = (buf_i32(&[0; 4]), buf_i32(&[0]), buf_i32(&[0; 4]));
        let l = launch(
            "gate",
            1,
            [8, 1, 1],
            [4, 1, 1],
            vec![arg(&data), arg(&flag), arg(&out)],
        );
        let rec = Recorder::default();
        let r = device(counted).run(p, &l, s, &rec);
        assert!(r.is_ok(), "{}: {r:?}", s.describe());
        assert_eq!(read_i32(&out), [100, 101, 102, 103], "{}", s.describe());
        let events = rec.take();
        let starts = events
            .iter()
            .filter(|e| matches!(e, Ev::GroupStart(_)))
            .count();
        let ends = events.iter().filter(|e| matches!(e, Ev::GroupEnd)).count();
        let items = events
            .iter()
            .filter(|e| matches!(e, Ev::ItemEnd(_)))
            .count();
        assert_eq!((starts, ends, items), (2, 2, 8), "{}", s.describe());
    });
}

/// With one worker the interleaving does not depend on timing: slices are counted, so two
/// runs of a spinning launch execute the same instructions.
#[test]
fn one_worker_interleaves_spinning_groups_the_same_way_every_run() {
    bounded("chain, one worker", |progress| {
        let p = program(SRC, "-O2");
        for wg_order in [Order::InOrder, Order::Reverse, Order::Random] {
            let s = Schedule {
                wg_order,
                threads: 1,
                seed: 5,
                ..Schedule::default()
            };
            progress(s.describe());
            let count = || {
                let (data, flags) = (buf_i32(&[0; 4]), buf_i32(&[0; 4]));
                let l = launch(
                    "chain",
                    1,
                    [4, 1, 1],
                    [1, 1, 1],
                    vec![arg(&data), arg(&flags)],
                );
                let st = device(true)
                    .run(&p, &l, &s, &NoObserver)
                    .unwrap_or_else(|e| panic!("{e}"));
                st.instructions
            };
            let first = count();
            assert_eq!(first, count(), "{}", s.describe());
        }
    });
}

/// What bounds fair scheduling's memory: groups that all spin forever (nobody raises the
/// flag), each holding 8 MiB of local memory. With one worker, groups start until their
/// suspended state passes 256 MiB (the 32nd: 32 x 8 MiB and a little), then the suspended
/// ones take turns and no other starts; the watchdog ends the launch and every started
/// group, suspended or not, reports its spinning item and ends once.
#[test]
fn suspended_groups_are_bounded_by_their_memory() {
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    #[derive(Default)]
    struct Counts {
        starts: AtomicUsize,
        ends: AtomicUsize,
        stalled_items: AtomicUsize,
    }
    impl Observer for Counts {
        type Group = ();
        fn group_start(&self, _g: &GroupInfo) {
            self.starts.fetch_add(1, Relaxed);
        }
        fn stalled(&self, _g: &mut (), _why: &str, running: &[(WorkItem, InstId)]) {
            self.stalled_items.fetch_add(running.len(), Relaxed);
        }
        fn group_end(&self, _g: ()) {
            self.ends.fetch_add(1, Relaxed);
        }
    }
    bounded("bounded", |progress| {
        let src = r#"
            __kernel void spin(volatile __global int *flag, __local int *big) {
                big[0] = 1;
                while (atomic_or(flag, 0) == 0)
                    ;
            }"#;
        let p = program(src, "-O2");
        for quantum in [0, 1] {
            progress(format!("quantum {quantum}"));
            let flag = buf_i32(&[0]);
            let l = launch(
                "spin",
                1,
                [64, 1, 1],
                [1, 1, 1],
                vec![arg(&flag), ArgValue::Local(8 << 20)],
            );
            let s = Schedule {
                quantum,
                threads: 1,
                ..Schedule::default()
            };
            let counts = Counts::default();
            let r = Device::new(1)
                // Long enough for all 32 groups to start (each after the others' spin
                // slices) on a loaded machine: 2 s once saw only 31 beside other builds.
                .with_time_limit(Duration::from_secs(5))
                .run(&p, &l, &s, &counts);
            assert!(
                matches!(&r, Err(ExecError::Aborted(m)) if m.contains("time limit")),
                "quantum {quantum}: {r:?}"
            );
            let starts = counts.starts.load(Relaxed);
            assert_eq!(starts, 32, "quantum {quantum}");
            assert_eq!(counts.ends.load(Relaxed), starts, "quantum {quantum}");
            assert_eq!(
                counts.stalled_items.load(Relaxed),
                starts,
                "quantum {quantum}"
            );
        }
    });
}
