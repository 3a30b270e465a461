//! Replaying a record on the software device, and the work-group schedule amplifier
//! (docs/design.md, "Execution model"): run one launch under many seeded schedules and
//! compare every output buffer byte by byte; a difference means the result depends on the
//! schedule.

use crate::error::{CaptureError, Result};
use crate::record::{pointee_size, AddressQualifier, ArgValueRecord, RecordDir};
use serde::Serialize;
use shadowcl_compiler::{CompileRequest, Compiler};
use shadowcl_interpreter::{
    AllocId, ArgAddress, ArgValue, Buffer, Device, ExecError, KernelInfo, Launch, LaunchStats,
    NoObserver, Observer, Order, Program, Schedule,
};
use std::path::Path;
use std::sync::Arc;

/// Runs one launch on the device: `Device::run` with an observer, or a checker session's
/// launch path (which may run the launch more than once). Any such closure is one.
pub trait RunLaunch:
    FnMut(&Device, &Program, &Launch, &Schedule) -> std::result::Result<LaunchStats, ExecError>
{
}

impl<F> RunLaunch for F where
    F: FnMut(&Device, &Program, &Launch, &Schedule) -> std::result::Result<LaunchStats, ExecError>
{
}

/// A replayed buffer that differs from the recorded outputs: (argument index, first
/// differing offset).
type Mismatch = (u32, u64);

/// How to replay.
#[derive(Clone, Debug)]
pub struct ReplayOptions {
    pub schedule: Schedule,
    /// Replay even when buffer contents were not recorded (they start zeroed; a warning says
    /// so). When false such records are refused.
    pub allow_missing_contents: bool,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            schedule: Schedule::default(),
            allow_missing_contents: true,
        }
    }
}

/// Contents of one global buffer argument after a replay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OutputBuffer {
    pub arg_index: u32,
    pub name: String,
    /// Element size from the argument type (for element indices), 1 when unknown.
    pub elem_size: u64,
    #[serde(skip)]
    pub bytes: Vec<u8>,
}

/// What a replay produced.
#[derive(Clone, Debug)]
pub struct ReplayOutcome {
    /// Every distinct global buffer view, in argument order.
    pub outputs: Vec<OutputBuffer>,
    pub stats: LaunchStats,
    /// E.g. buffers whose contents were not recorded.
    pub warnings: Vec<String>,
    /// Buffers whose replayed contents differ from the outputs the record holds
    /// (inputs+outputs mode): `(argument index, first differing offset)`.
    pub recorded_output_mismatches: Vec<(u32, u64)>,
    /// The device buffers this run allocated (one per alias group), already dropped; lets
    /// checkers that keep per-allocation state forget them.
    pub allocations: Vec<AllocId>,
}

/// A record ready to run: program loaded, arguments checked against the kernel.
pub struct Replayer {
    pub record: RecordDir,
    pub program: Program,
    pub kernel: KernelInfo,
    /// True when the program came from compiling the recorded source.
    pub compiled_from_source: bool,
    device: Device,
    /// Buffer contents before the launch, per argument (read once, reused by every run).
    inputs: Vec<Option<Vec<u8>>>,
    /// Recorded outputs per argument (inputs+outputs records).
    recorded: Vec<Option<Vec<u8>>>,
}

impl std::fmt::Debug for Replayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replayer")
            .field("dir", &self.record.dir)
            .field("kernel", &self.kernel.name)
            .finish()
    }
}

impl Replayer {
    /// Opens and validates a record folder and loads its program (the recorded SPIR-V, or the
    /// recorded source compiled with clang-15 + llvm-spirv-15 by a default [`Compiler`]: no
    /// cache, source-faithful; [`Replayer::open_with`] takes the caller's).
    pub fn open(dir: impl AsRef<Path>) -> Result<Replayer> {
        Replayer::open_with(dir, &Compiler::new())
    }

    /// As [`Replayer::open`], compiling a recorded source with `compiler` (the command line
    /// passes the one its settings describe, so replay checks what the run checked).
    pub fn open_with(dir: impl AsRef<Path>, compiler: &Compiler) -> Result<Replayer> {
        let rd = RecordDir::open(dir)?;
        let (spirv, compiled) = match rd.spirv()? {
            Some(s) => (s, false),
            None => {
                let src = rd.source()?.ok_or_else(|| {
                    CaptureError::bad(&rd.dir, "field `program`: no source and no SPIR-V")
                })?;
                let debug_dir = std::fs::canonicalize(&rd.dir).unwrap_or_else(|_| rd.dir.clone());
                // The platform's own driver, so replay checks what the run checked.
                let req = CompileRequest {
                    sources: vec![src],
                    options: rd.record.program.build_options.clone(),
                    headers: Vec::new(),
                };
                let compiled = compiler
                    .clone()
                    .with_debug_dir(Some(debug_dir))
                    .compile(&req)
                    .map_err(|e| CaptureError::Compile(e.log))?;
                (compiled.spirv, true)
            }
        };
        let program = Program::load(&spirv).map_err(|e| CaptureError::Load {
            path: rd.dir.clone(),
            msg: e.to_string(),
        })?;
        let kernel = program.kernel(&rd.record.kernel).cloned().ok_or_else(|| {
            let names: Vec<&str> = program.kernels().iter().map(|k| k.name.as_str()).collect();
            CaptureError::bad(
                &rd.dir,
                format!(
                    "field `kernel`: the program has no kernel named `{}` (it has: {})",
                    rd.record.kernel,
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            )
        })?;
        check_args(&rd, &kernel)?;
        let n = rd.record.args.len();
        let inputs = (0..n).map(|i| rd.contents(i)).collect::<Result<Vec<_>>>()?;
        let recorded = (0..n)
            .map(|i| rd.recorded_outputs(i))
            .collect::<Result<Vec<_>>>()?;
        Ok(Replayer {
            record: rd,
            program,
            kernel,
            compiled_from_source: compiled,
            device: Device::new(0),
            inputs,
            recorded,
        })
    }

    /// Runs the launch once under `schedule`, reporting to `observer`; fresh buffers each time.
    pub fn run<O: Observer>(&self, schedule: &Schedule, observer: &O) -> Result<ReplayOutcome> {
        self.run_by(schedule, |d, p, l, s| d.run(p, l, s, observer))
    }

    /// Runs the launch once under `schedule` through `launch`, which runs it on the device
    /// (a checker session's own launch path, e.g. one that runs a racy launch twice to name
    /// its racing pairs); fresh buffers each time.
    pub fn run_by(&self, schedule: &Schedule, launch: impl RunLaunch) -> Result<ReplayOutcome> {
        self.run_with(schedule, launch, true)
    }

    fn run_with(
        &self,
        schedule: &Schedule,
        mut run: impl RunLaunch,
        allow_missing: bool,
    ) -> Result<ReplayOutcome> {
        let rd = &self.record;
        let r = &rd.record;
        let mut warnings = Vec::new();
        let buffers = self.alias_buffers()?;
        let mut args = Vec::with_capacity(r.args.len());
        for (i, a) in r.args.iter().enumerate() {
            let v = match &a.value {
                ArgValueRecord::Scalar { bytes } => ArgValue::Bytes(bytes.0.clone()),
                ArgValueRecord::Local { size } => ArgValue::Local(*size),
                ArgValueRecord::Null => ArgValue::Null,
                ArgValueRecord::Buffer {
                    size,
                    group,
                    origin,
                    ..
                } => {
                    let Some(buf) = buffers.get(*group as usize).and_then(|b| b.clone()) else {
                        return Err(CaptureError::bad(
                            &rd.dir,
                            format!("field `args[{i}].group`: no buffer for group {group}"),
                        ));
                    };
                    match &self.inputs[i] {
                        Some(bytes) => buf.write(*origin as usize, bytes).map_err(|e| {
                            CaptureError::bad(&rd.dir, format!("field `args[{i}].origin`: {e}"))
                        })?,
                        None if allow_missing => warnings.push(format!(
                            "arg {i} (`{}`): contents not recorded; replayed with zeros",
                            a.name
                        )),
                        None => {
                            return Err(CaptureError::bad(
                                &rd.dir,
                                format!(
                                "field `args[{i}].contents`: not recorded (record data mode `{}`)",
                                r.data
                            ),
                            ))
                        }
                    }
                    match &a.image {
                        Some(img) => ArgValue::Image {
                            buffer: buf,
                            desc: img.to_desc().ok_or_else(|| {
                                CaptureError::bad(
                                    &rd.dir,
                                    format!("field `args[{i}].image.dim`: `{}`", img.dim),
                                )
                            })?,
                        },
                        None => ArgValue::Buffer {
                            buffer: buf,
                            offset: *origin,
                            size: *size,
                        },
                    }
                }
            };
            args.push(v);
        }
        let launch = Launch {
            kernel: r.kernel.clone(),
            work_dim: r.work_dim,
            global_offset: r.global_offset,
            global_size: r.global_size,
            local_size: r.local_size,
            args: args.clone(),
        };
        let stats = run(&self.device, &self.program, &launch, schedule).map_err(|e| {
            CaptureError::Exec {
                path: rd.dir.clone(),
                msg: e.to_string(),
            }
        })?;
        let (outputs, mismatches) = self.read_outputs(&args)?;
        let allocations = buffers.iter().flatten().map(|b| b.id()).collect();
        Ok(ReplayOutcome {
            outputs,
            stats,
            warnings,
            recorded_output_mismatches: mismatches,
            allocations,
        })
    }

    /// One buffer per alias group of the record's arguments, big enough for every view of it.
    fn alias_buffers(&self) -> Result<Vec<Option<Arc<Buffer>>>> {
        let rd = &self.record;
        let r = &rd.record;
        let mut group_len: Vec<u64> = Vec::new();
        for a in &r.args {
            if let ArgValueRecord::Buffer {
                size,
                group,
                origin,
                ..
            } = &a.value
            {
                let g = *group as usize;
                if group_len.len() <= g {
                    group_len.resize(g + 1, 0);
                }
                let end = origin.checked_add(*size).ok_or_else(|| {
                    CaptureError::bad(
                        &rd.dir,
                        format!("field `args[{}].origin`: origin + size overflows", a.index),
                    )
                })?;
                group_len[g] = group_len[g].max(end);
            }
        }
        let mut buffers: Vec<Option<Arc<Buffer>>> = vec![None; group_len.len()];
        for (g, len) in group_len.iter().enumerate() {
            if *len > 0 {
                let b = Buffer::new(*len as usize).ok_or_else(|| CaptureError::Exec {
                    path: rd.dir.clone(),
                    msg: format!("cannot allocate {len} bytes for buffer group {g}"),
                })?;
                buffers[g] = Some(b);
            }
        }
        Ok(buffers)
    }

    /// Every distinct global buffer view after the run, and where each differs from the
    /// outputs the record holds: (argument index, first differing offset).
    fn read_outputs(&self, args: &[ArgValue]) -> Result<(Vec<OutputBuffer>, Vec<Mismatch>)> {
        let rd = &self.record;
        let r = &rd.record;
        let mut outputs: Vec<OutputBuffer> = Vec::new();
        let mut seen: Vec<(u32, u64, u64)> = Vec::new();
        let mut mismatches = Vec::new();
        for (i, a) in r.args.iter().enumerate() {
            let ArgValueRecord::Buffer {
                size,
                group,
                origin,
                ..
            } = &a.value
            else {
                continue;
            };
            if a.address != AddressQualifier::Global || seen.contains(&(*group, *origin, *size)) {
                continue;
            }
            seen.push((*group, *origin, *size));
            let (ArgValue::Buffer { buffer, .. } | ArgValue::Image { buffer, .. }) = &args[i]
            else {
                continue;
            };
            let mut bytes = vec![0u8; *size as usize];
            buffer
                .read(*origin as usize, &mut bytes)
                .map_err(|e| CaptureError::bad(&rd.dir, format!("field `args[{i}].size`: {e}")))?;
            if let Some(rec) = &self.recorded[i] {
                if let Some(off) = first_difference(rec, &bytes) {
                    mismatches.push((a.index, off));
                }
            }
            outputs.push(OutputBuffer {
                arg_index: a.index,
                name: a.name.clone(),
                elem_size: pointee_size(&a.type_name),
                bytes,
            });
        }
        Ok((outputs, mismatches))
    }
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<u64> {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .map(|p| p as u64)
        .or_else(|| (a.len() != b.len()).then_some(a.len().min(b.len()) as u64))
}

fn check_args(rd: &RecordDir, k: &KernelInfo) -> Result<()> {
    let r = &rd.record;
    if r.args.len() != k.args.len() {
        return Err(CaptureError::bad(
            &rd.dir,
            format!(
                "field `args`: {} arguments recorded but kernel `{}` takes {}",
                r.args.len(),
                k.name,
                k.args.len()
            ),
        ));
    }
    for (i, (a, ka)) in r.args.iter().zip(&k.args).enumerate() {
        let ok = match (&a.value, ka.address) {
            (ArgValueRecord::Buffer { .. } | ArgValueRecord::Null, ArgAddress::Global)
            | (ArgValueRecord::Buffer { .. } | ArgValueRecord::Null, ArgAddress::Constant)
            | (ArgValueRecord::Local { .. }, ArgAddress::Local) => true,
            (ArgValueRecord::Scalar { bytes }, ArgAddress::Private) => {
                if ka.size != 0 && bytes.0.len() != ka.size {
                    return Err(CaptureError::bad(
                        &rd.dir,
                        format!(
                            "field `args[{i}].bytes`: {} bytes recorded but `{}` is {} bytes",
                            bytes.0.len(),
                            ka.name,
                            ka.size
                        ),
                    ));
                }
                true
            }
            _ => false,
        };
        if !ok {
            return Err(CaptureError::bad(
                &rd.dir,
                format!(
                    "field `args[{i}].kind`: recorded as {} but kernel argument `{}` is {:?}",
                    match a.value {
                        ArgValueRecord::Scalar { .. } => "scalar",
                        ArgValueRecord::Buffer { .. } => "buffer",
                        ArgValueRecord::Local { .. } => "local",
                        ArgValueRecord::Null => "null",
                    },
                    ka.name,
                    ka.address
                ),
            ));
        }
    }
    Ok(())
}

/// Replays the record in `dir` once under `opts.schedule`, reporting to `observer`.
pub fn replay<O: Observer>(
    dir: impl AsRef<Path>,
    opts: &ReplayOptions,
    observer: &O,
) -> Result<ReplayOutcome> {
    let rp = Replayer::open(dir)?;
    rp.run_with(
        &opts.schedule,
        |d: &Device, p: &Program, l: &Launch, s: &Schedule| d.run(p, l, s, observer),
        opts.allow_missing_contents,
    )
}

/// Settings of the schedule amplifier.
#[derive(Clone, Debug)]
pub struct AmplifyOptions {
    /// Number of schedules to run (at least 1; 1 = just the base schedule).
    pub schedules: usize,
    /// Schedule 0; its `seed` seeds the others. Amplification runs are always serial.
    pub base: Schedule,
    /// How many differing offsets a finding lists.
    pub max_offsets: usize,
}

impl Default for AmplifyOptions {
    fn default() -> Self {
        AmplifyOptions {
            schedules: 10,
            base: Schedule::default(),
            max_offsets: 8,
        }
    }
}

fn mix(mut x: u64) -> u64 {
    // splitmix64: distinct, well-spread seeds from consecutive inputs.
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The `n` schedules the amplifier runs: the base one (made serial), then the reverse
/// work-group order, then seeded random work-group orders with varying work-item orders and
/// quanta. Deterministic for a given base.
pub fn schedules_for(base: &Schedule, n: usize) -> Vec<Schedule> {
    let serial = |mut s: Schedule| {
        s.parallel = false;
        s.threads = 1;
        s
    };
    let mut out = vec![serial(base.clone())];
    const QUANTA: [u32; 5] = [0, 1, 3, 0, 16];
    for i in 1..n.max(1) {
        let s = if i == 1 {
            Schedule {
                wg_order: Order::Reverse,
                wi_order: Order::Reverse,
                quantum: 0,
                seed: base.seed,
                ..base.clone()
            }
        } else {
            Schedule {
                wg_order: Order::Random,
                wi_order: [Order::InOrder, Order::Reverse, Order::Random][i % 3],
                quantum: QUANTA[i % QUANTA.len()],
                seed: mix(base.seed ^ (i as u64).wrapping_mul(0x1000_0001)) >> 16,
                ..base.clone()
            }
        };
        out.push(serial(s));
    }
    out
}

/// The command-line flags that reproduce `s` with `shadowcl replay`.
pub fn reproduce_flags(s: &Schedule) -> String {
    format!(
        "--wg-order {} --wi-order {} --quantum {} --seed {}",
        s.wg_order, s.wi_order, s.quantum, s.seed
    )
}

/// One side of a schedule-dependent-output finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScheduleRun {
    /// [`Schedule::describe`].
    pub schedule: String,
    pub seed: u64,
    /// Flags for `shadowcl replay` that rerun this schedule.
    pub reproduce: String,
    /// Bytes at the first differing offset (up to one element), hex.
    pub bytes: String,
}

/// A buffer whose contents differ between two schedules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Always `schedule-dependent-output`.
    pub kind: &'static str,
    pub memory: &'static str,
    pub kernel: String,
    /// Argument name of the buffer.
    pub buffer: String,
    pub arg_index: u32,
    /// First differing byte offset inside the buffer, and its element index.
    pub offset: u64,
    pub index: u64,
    /// The first differing byte offsets (up to `max_offsets`).
    pub offsets: Vec<u64>,
    /// How many bytes differ between `first` and `second`.
    pub differing_bytes: u64,
    pub first: ScheduleRun,
    pub second: ScheduleRun,
    /// How many schedules produced a buffer different from `first`'s.
    pub count: usize,
}

/// What the amplifier found.
#[derive(Clone, Debug)]
pub struct Amplification {
    pub schedules: Vec<Schedule>,
    pub findings: Vec<Finding>,
    /// Outputs of schedule 0.
    pub baseline: ReplayOutcome,
}

/// Runs `rp` under `opts.schedules` schedules ([`schedules_for`]), comparing every output
/// buffer with schedule 0's. `run(i, device, program, launch, schedule)` runs run `i` (with
/// whatever checkers it attaches); `after_run(i, schedule, outcome)` follows each run (for
/// checkers' results and progress output).
pub fn amplify<F, G>(
    rp: &Replayer,
    opts: &AmplifyOptions,
    mut run: F,
    mut after_run: G,
) -> Result<Amplification>
where
    F: FnMut(
        usize,
        &Device,
        &Program,
        &Launch,
        &Schedule,
    ) -> std::result::Result<LaunchStats, ExecError>,
    G: FnMut(usize, &Schedule, &ReplayOutcome),
{
    let schedules = schedules_for(&opts.base, opts.schedules);
    let mut baseline: Option<ReplayOutcome> = None;
    // Per output buffer: (first differing run, its outcome bytes, count of differing runs).
    let mut diffs: Vec<Option<(usize, Vec<u8>, usize)>> = Vec::new();
    for (i, s) in schedules.iter().enumerate() {
        let out = rp.run_by(s, |d: &Device, p: &Program, l: &Launch, s: &Schedule| {
            run(i, d, p, l, s)
        })?;
        after_run(i, s, &out);
        match &baseline {
            None => {
                diffs = vec![None; out.outputs.len()];
                baseline = Some(out);
            }
            Some(base) => {
                for (k, (b, o)) in base.outputs.iter().zip(&out.outputs).enumerate() {
                    if b.bytes != o.bytes {
                        match &mut diffs[k] {
                            Some((_, _, count)) => *count += 1,
                            slot @ None => *slot = Some((i, o.bytes.clone(), 1)),
                        }
                    }
                }
            }
        }
    }
    let Some(baseline) = baseline else {
        return Err(CaptureError::Unsupported("no schedule to run".into()));
    };
    let mut findings = Vec::new();
    for (k, d) in diffs.into_iter().enumerate() {
        let Some((run, other, count)) = d else {
            continue;
        };
        let b = &baseline.outputs[k];
        let differing: Vec<u64> = b
            .bytes
            .iter()
            .zip(&other)
            .enumerate()
            .filter(|(_, (x, y))| x != y)
            .map(|(i, _)| i as u64)
            .collect();
        let Some(&first_off) = differing.first() else {
            continue;
        };
        let elem = b.elem_size.max(1);
        let start = (first_off / elem * elem) as usize;
        let end = (start + elem as usize).min(b.bytes.len());
        let side = |s: &Schedule, bytes: &[u8]| ScheduleRun {
            schedule: s.describe(),
            seed: s.seed,
            reproduce: reproduce_flags(s),
            bytes: crate::record::to_hex(bytes.get(start..end).unwrap_or(&[])),
        };
        findings.push(Finding {
            kind: "schedule-dependent-output",
            memory: "global",
            kernel: rp.record.record.kernel.clone(),
            buffer: b.name.clone(),
            arg_index: b.arg_index,
            offset: first_off,
            index: first_off / elem,
            offsets: differing.iter().take(opts.max_offsets).copied().collect(),
            differing_bytes: differing.len() as u64,
            first: side(&schedules[0], &b.bytes),
            second: side(&schedules[run], &other),
            count,
        });
    }
    Ok(Amplification {
        schedules,
        findings,
        baseline,
    })
}

/// [`amplify`] without checkers.
pub fn amplify_plain(rp: &Replayer, opts: &AmplifyOptions) -> Result<Amplification> {
    amplify(
        rp,
        opts,
        |_, d, p, l, s| d.run(p, l, s, &NoObserver),
        |_, _, _| {},
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_are_deterministic_serial_and_varied() {
        let base = Schedule {
            seed: 7,
            ..Schedule::default()
        };
        let a = schedules_for(&base, 10);
        let b = schedules_for(&base, 10);
        assert_eq!(a, b);
        assert_eq!(a.len(), 10);
        assert!(a.iter().all(|s| !s.parallel && s.threads == 1));
        assert_eq!(a[0].wg_order, Order::InOrder);
        assert_eq!(a[1].wg_order, Order::Reverse);
        assert!(a[2..].iter().all(|s| s.wg_order == Order::Random));
        let seeds: std::collections::HashSet<u64> = a[2..].iter().map(|s| s.seed).collect();
        assert_eq!(seeds.len(), 8, "random schedules need distinct seeds");
        assert!(a.iter().any(|s| s.quantum > 0));
        assert_ne!(schedules_for(&Schedule::default(), 10)[5].seed, a[5].seed);
        assert_eq!(
            reproduce_flags(&a[1]),
            "--wg-order reverse --wi-order reverse --quantum 0 --seed 7"
        );
        assert_eq!(first_difference(&[1, 2, 3], &[1, 2, 4]), Some(2));
        assert_eq!(first_difference(&[1, 2], &[1, 2]), None);
    }
}
