//! How a launch uses the device's workers: the calling thread runs a small launch alone
//! (waking a sleeping worker, and being woken by it at the end, costs more than such a
//! launch), and calls the other workers once the launch has run a while, also from inside a
//! long work-group, which steps aside at a barrier release so that the thread can.

mod common;

use std::collections::HashSet;
use std::sync::Mutex;
use std::thread::ThreadId;

use common::*;
use shadowcl_interpreter::*;

const SRC: &str = r#"
    __kernel void small(__global int *out) {
        out[get_global_id(0)] = (int)get_global_id(0);
    }

    __kernel void long_loop(__global int *out, int n) {
        __local int acc[16];
        size_t l = get_local_id(0);
        acc[l] = 0;
        for (int i = 0; i < n; i++) {
            barrier(CLK_LOCAL_MEM_FENCE);
            acc[l] += i & 7;
        }
        out[get_global_id(0)] = acc[l];
    }
"#;

/// The threads each work-group's accesses ran on.
#[derive(Default)]
struct Threads(Mutex<HashSet<(u64, ThreadId)>>);

impl Threads {
    fn of_launch(&self) -> HashSet<ThreadId> {
        self.0.lock().unwrap().iter().map(|(_, t)| *t).collect()
    }
    fn of_group(&self, group: u64) -> usize {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|(g, _)| *g == group)
            .count()
    }
}

impl Observer for Threads {
    type Group = u64;
    fn group_start(&self, group: &GroupInfo) -> u64 {
        group.group_linear
    }
    fn access(&self, group: &mut u64, _access: &Access<'_>) {
        let thread = std::thread::current().id();
        self.0.lock().unwrap().insert((*group, thread));
    }
}

fn two_workers(quantum: u32) -> Schedule {
    Schedule {
        threads: 2,
        quantum,
        ..Schedule::default()
    }
}

#[test]
fn the_calling_thread_runs_a_small_launch_alone() {
    let p = program(SRC, "");
    let device = Device::new(2);
    let out = buf_i32(&[0; 64]);
    let l = launch("small", 1, [64, 1, 1], [16, 1, 1], vec![arg(&out)]);
    let me = std::thread::current().id();
    // A launch that outlasts the time alone (a busy machine) calls the others; most of
    // these four groups of 16 items do not. Before, the calling thread only waited while
    // the pool's threads ran every group.
    let alone = (0..20)
        .filter(|_| {
            let seen = Threads::default();
            device
                .run(&p, &l, &two_workers(Schedule::AUTO), &seen)
                .unwrap_or_else(|e| panic!("run failed: {e}"));
            seen.of_launch() == HashSet::from([me])
        })
        .count();
    assert!(
        alone >= 10,
        "only {alone} of 20 small launches ran on the calling thread alone"
    );
    assert_eq!(read_i32(&out), (0..64).collect::<Vec<i32>>());
}

#[test]
fn a_long_launch_calls_the_other_workers_from_inside_a_group() {
    let p = program(SRC, "");
    let device = Device::new(2);
    let n = 20_000;
    let expected: i32 = (0..n).map(|i| i & 7).sum();
    // Run to barrier and lockstep each release barriers in their own executor.
    for quantum in [0, Schedule::AUTO] {
        let out = buf_i32(&[0; 32]);
        // Two groups: the calling thread's first group steps aside at a barrier release
        // once its time alone is up; the thread starts the second and calls the other
        // worker, which takes up the first. Without stepping aside the first group would
        // run to its end on the calling thread before anyone else was called.
        let l = launch(
            "long_loop",
            1,
            [32, 1, 1],
            [16, 1, 1],
            vec![arg(&out), val(n)],
        );
        let seen = Threads::default();
        device
            .run(&p, &l, &two_workers(quantum), &seen)
            .unwrap_or_else(|e| panic!("run failed: {e}"));
        assert_eq!(
            seen.of_group(0),
            2,
            "quantum {quantum}: the first group ran on one thread"
        );
        assert_eq!(seen.of_launch().len(), 2, "quantum {quantum}");
        assert_eq!(read_i32(&out), vec![expected; 32], "quantum {quantum}");
    }
}
