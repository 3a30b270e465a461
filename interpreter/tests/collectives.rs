//! Work-group functions (OpenCL C 6.15.13) of OpenCL C 3.0 programs: every reduction, scan
//! and broadcast of every type clang declares them for, under run-to-barrier, lockstep and
//! the mix of the two, in every work-item order; divergence at one; sub-group scope refused.

mod common;

use common::*;
use shadowcl_interpreter::*;

/// Every arithmetic work-group function of `T`, and a broadcast from local id 3, each item's
/// results at `out[f * n + i]` (`n` work-items in all).
const ARITH: &str = r#"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void k(__global const T *in, __global T *out) {
    size_t i = get_global_id(0), n = get_global_size(0);
    T x = in[i];
    out[0 * n + i] = work_group_reduce_add(x);
    out[1 * n + i] = work_group_reduce_min(x);
    out[2 * n + i] = work_group_reduce_max(x);
    out[3 * n + i] = work_group_scan_inclusive_add(x);
    out[4 * n + i] = work_group_scan_inclusive_min(x);
    out[5 * n + i] = work_group_scan_inclusive_max(x);
    out[6 * n + i] = work_group_scan_exclusive_add(x);
    out[7 * n + i] = work_group_scan_exclusive_min(x);
    out[8 * n + i] = work_group_scan_exclusive_max(x);
    out[9 * n + i] = work_group_broadcast(x, 3);
}"#;
const FUNCS: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
    F16,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::I32 => "int",
            Ty::U32 => "uint",
            Ty::I64 => "long",
            Ty::U64 => "ulong",
            Ty::F32 => "float",
            Ty::F64 => "double",
            Ty::F16 => "half",
        }
    }
    fn size(self) -> usize {
        match self {
            Ty::I32 | Ty::U32 | Ty::F32 => 4,
            Ty::I64 | Ty::U64 | Ty::F64 => 8,
            Ty::F16 => 2,
        }
    }
    fn signed(self) -> bool {
        !matches!(self, Ty::U32 | Ty::U64)
    }
    /// `v` (a small integer) as the type's bytes.
    fn enc(self, v: i64) -> Vec<u8> {
        match self {
            Ty::I32 | Ty::U32 => (v as i32).to_le_bytes().to_vec(),
            Ty::I64 | Ty::U64 => v.to_le_bytes().to_vec(),
            Ty::F32 => (v as f32).to_le_bytes().to_vec(),
            Ty::F64 => (v as f64).to_le_bytes().to_vec(),
            Ty::F16 => half::f16::from_f64(v as f64).to_le_bytes().to_vec(),
        }
    }
    /// An exclusive scan's first result: the type's largest value for min, smallest for
    /// max (+INF / -INF for floating point).
    fn identity(self, max: bool) -> Vec<u8> {
        match (self, max) {
            (Ty::I32, false) => i32::MAX.to_le_bytes().to_vec(),
            (Ty::I32, true) => i32::MIN.to_le_bytes().to_vec(),
            (Ty::U32, false) => u32::MAX.to_le_bytes().to_vec(),
            (Ty::I64, false) => i64::MAX.to_le_bytes().to_vec(),
            (Ty::I64, true) => i64::MIN.to_le_bytes().to_vec(),
            (Ty::U64, false) => u64::MAX.to_le_bytes().to_vec(),
            (Ty::U32 | Ty::U64, true) => self.enc(0),
            (Ty::F32, m) => (if m { f32::NEG_INFINITY } else { f32::INFINITY })
                .to_le_bytes()
                .to_vec(),
            (Ty::F64, m) => (if m { f64::NEG_INFINITY } else { f64::INFINITY })
                .to_le_bytes()
                .to_vec(),
            (Ty::F16, m) => (if m { 0xfc00u16 } else { 0x7c00 }).to_le_bytes().to_vec(),
        }
    }
}

/// Every schedule family: run to barrier, lockstep, their mix, a quantum of 3; each item
/// order.
fn schedules() -> Vec<Schedule> {
    let mut v = vec![];
    for quantum in [0, 1, 3, Schedule::AUTO] {
        for wi_order in [Order::InOrder, Order::Reverse, Order::Random] {
            v.push(Schedule {
                quantum,
                wi_order,
                seed: 7,
                ..Schedule::default()
            });
        }
    }
    v
}

fn run_with(p: &Program, l: &Launch, s: &Schedule) -> Result<LaunchStats, ExecError> {
    Device::new(1).run(p, l, s, &NoObserver)
}

#[test]
fn reductions_scans_and_broadcasts_of_every_type() {
    let (n, local) = (24usize, 8usize);
    for ty in [
        Ty::I32,
        Ty::U32,
        Ty::I64,
        Ty::U64,
        Ty::F32,
        Ty::F64,
        Ty::F16,
    ] {
        let src = format!("#define T {}\n{ARITH}", ty.name());
        let p = program_std(&src, "-O2", "CL3.0");
        // Unsigned inputs stay small and positive; signed ones cross zero.
        let input: Vec<i64> = (0..n as i64)
            .map(|i| (i * 7 % 11) - if ty.signed() { 5 } else { 0 })
            .collect();
        let mut want: Vec<Vec<u8>> = vec![vec![]; FUNCS * n];
        for g in 0..n / local {
            let xs = &input[g * local..(g + 1) * local];
            for k in 0..local {
                let i = g * local + k;
                let upto = &xs[..=k];
                let before = &xs[..k];
                let vals: [Option<i64>; FUNCS] = [
                    Some(xs.iter().sum()),
                    xs.iter().min().copied(),
                    xs.iter().max().copied(),
                    Some(upto.iter().sum()),
                    upto.iter().min().copied(),
                    upto.iter().max().copied(),
                    Some(before.iter().sum()),
                    before.iter().min().copied(),
                    before.iter().max().copied(),
                    Some(xs[3]),
                ];
                for (f, v) in vals.iter().enumerate() {
                    want[f * n + i] = match v {
                        Some(v) => ty.enc(*v),
                        None => ty.identity(f == 8),
                    };
                }
            }
        }
        let want: Vec<u8> = want.concat();
        let bytes: Vec<u8> = input.iter().flat_map(|&v| ty.enc(v)).collect();
        for s in schedules() {
            let (bi, bo) = (
                buf_bytes(&bytes),
                buf_bytes(&vec![0u8; FUNCS * n * ty.size()]),
            );
            let l = launch(
                "k",
                1,
                [n as u64, 1, 1],
                [local as u64, 1, 1],
                vec![arg(&bi), arg(&bo)],
            );
            if let Err(e) = run_with(&p, &l, &s) {
                panic!("{ty:?} {}: {e}", s.describe());
            }
            let got = read_bytes(&bo);
            for f in 0..FUNCS {
                let row = f * n * ty.size()..(f + 1) * n * ty.size();
                assert_eq!(
                    got[row.clone()],
                    want[row],
                    "{ty:?}, function {f}, {}",
                    s.describe()
                );
            }
        }
    }
}

/// work_group_all / work_group_any, and broadcasts from 2-D and 3-D local ids, in a
/// 2 x 2 x 2 group.
#[test]
fn votes_and_broadcasts_of_several_dimensions() {
    let src = r#"
    __kernel void k(__global const int *in, __global int *out) {
        size_t i = get_local_linear_id() + 8 * (get_group_id(0) + get_num_groups(0) * get_group_id(1));
        int x = in[i];
        out[4 * i + 0] = work_group_all(x > 0);
        out[4 * i + 1] = work_group_any(x > 6);
        out[4 * i + 2] = work_group_broadcast(x, 1, 1);
        out[4 * i + 3] = work_group_broadcast(x, (size_t)1, (size_t)0, (size_t)1);
    }"#;
    let p = program_std(src, "-O2", "CL3.0");
    // Group 0: all positive, one above 6; group 1: one zero, none above 6.
    let input: Vec<i32> = (0..16).map(|i| if i < 8 { i + 1 } else { i - 8 }).collect();
    let mut want = vec![0i32; 64];
    for i in 0..16usize {
        let g = &input[i / 8 * 8..i / 8 * 8 + 8];
        want[4 * i] = g.iter().all(|&x| x > 0) as i32;
        want[4 * i + 1] = g.iter().any(|&x| x > 6) as i32;
        want[4 * i + 2] = g[1 + 2];
        want[4 * i + 3] = g[1 + 4];
    }
    for s in schedules() {
        let (bi, bo) = (buf_i32(&input), buf_i32(&[0; 64]));
        let l = launch("k", 3, [4, 2, 2], [2, 2, 2], vec![arg(&bi), arg(&bo)]);
        if let Err(e) = run_with(&p, &l, &s) {
            panic!("{}: {e}", s.describe());
        }
        assert_eq!(read_i32(&bo), want, "{}", s.describe());
    }
}

/// A broadcast from a local id outside the group stops the launch, with a reason.
#[test]
fn a_broadcast_from_outside_the_group_aborts() {
    let src = r#"
    __kernel void k(__global int *out) {
        out[get_global_id(0)] = work_group_broadcast((int)get_local_id(0), 9);
    }"#;
    let p = program_std(src, "-O2", "CL3.0");
    for s in schedules() {
        let bo = buf_i32(&[0; 8]);
        let l = launch("k", 1, [8, 1, 1], [8, 1, 1], vec![arg(&bo)]);
        let r = run_with(&p, &l, &s);
        assert!(
            matches!(&r, Err(ExecError::Aborted(m)) if m.contains("work_group_broadcast")),
            "{}: {r:?}",
            s.describe()
        );
    }
}

/// A work-group function is a barrier arrival without fences, and reached by half the group
/// (the others finish) it is released as barrier divergence is.
#[test]
fn a_collective_arrives_as_a_barrier_without_fences() {
    let src = r#"
    __kernel void k(__global int *out) {
        size_t i = get_local_id(0);
        if (i < 4)
            out[i] = work_group_reduce_add((int)i);
    }"#;
    let p = program_std(src, "-O2", "CL3.0");
    for s in schedules() {
        let bo = buf_i32(&[0; 8]);
        let l = launch("k", 1, [8, 1, 1], [8, 1, 1], vec![arg(&bo)]);
        let rec = Recorder::default();
        if let Err(e) = Device::new(1).run(&p, &l, &s, &rec) {
            panic!("{}: {e}", s.describe());
        }
        let ev = rec.take();
        let arrivals: Vec<_> = ev
            .iter()
            .filter_map(|e| match e {
                Ev::Barrier { local, fences, .. } => Some((*local, *fences)),
                _ => None,
            })
            .collect();
        assert_eq!(arrivals.len(), 4, "{}: {ev:?}", s.describe());
        assert!(arrivals.iter().all(|a| a.0 < 4 && a.1 == Fences::default()));
        assert!(
            ev.contains(&Ev::Release(Release::SomeFinished)),
            "{}: {ev:?}",
            s.describe()
        );
        // The arrivals' sum, 0 + 1 + 2 + 3 (the result is undefined; it must not be garbage).
        assert_eq!(read_i32(&bo), [6, 6, 6, 6, 0, 0, 0, 0], "{}", s.describe());
    }
}

/// Sub-group functions are not the device's: a module with one does not load.
#[test]
fn sub_group_functions_are_refused() {
    let src = r#"
    #pragma OPENCL EXTENSION cl_khr_subgroups : enable
    __kernel void k(__global int *out) {
        out[get_global_id(0)] = sub_group_reduce_add((int)get_local_id(0));
    }"#;
    let spv = compile_std(src, "-O2", "CL2.0");
    match Program::load(&spv) {
        Err(LoadError::Unsupported { what, .. }) => {
            assert!(what.contains("Subgroup"), "{what}")
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("a sub-group function loaded"),
    }
}

/// A work-group function in a called function (its own frame), at -O0 and -O2, and two in
/// a row whose results each work-item keeps apart.
#[test]
fn collectives_in_called_functions() {
    let src = r#"
    __attribute__((noinline)) int sum_then_max(int x) {
        int s = work_group_reduce_add(x);
        return s * 1000 + work_group_reduce_max(x);
    }
    __kernel void k(__global const int *in, __global int *out) {
        size_t i = get_global_id(0);
        out[i] = sum_then_max(in[i]) + work_group_scan_inclusive_add(1);
    }"#;
    let input: Vec<i32> = (0..16).map(|i| i % 5).collect();
    let mut want = vec![0i32; 16];
    for (i, w) in want.iter_mut().enumerate() {
        let g = &input[i / 8 * 8..i / 8 * 8 + 8];
        let (s, m) = (g.iter().sum::<i32>(), g.iter().max().copied().unwrap_or(0));
        *w = s * 1000 + m + (i % 8) as i32 + 1;
    }
    for opt in ["-O0", "-O2"] {
        let p = program_std(src, opt, "CL3.0");
        for s in schedules() {
            let (bi, bo) = (buf_i32(&input), buf_i32(&[0; 16]));
            let l = launch("k", 1, [16, 1, 1], [8, 1, 1], vec![arg(&bi), arg(&bo)]);
            if let Err(e) = run_with(&p, &l, &s) {
                panic!("{opt} {}: {e}", s.describe());
            }
            assert_eq!(read_i32(&bo), want, "{opt} {}", s.describe());
        }
    }
}
