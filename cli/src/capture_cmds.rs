//! `shadowcl captures | replay | export` (owned by the capture work).
//!
//! `replay` runs the checkers of `shadowcl-shadow` on every schedule (`--checks`, default as
//! `SHADOWCL_CHECKS`: all but benign) and adds the amplifier's `schedule-dependent-output`
//! findings to the same report (`--report` JSON, `--sarif`).
//!
//! Exit codes: 0 = done, nothing found; 1 = findings (checker findings, schedule-dependent
//! output, replay differs from the recorded outputs) or unreadable records in a listing;
//! 2 = usage or I/O error, bad record.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use shadowcl_capture::{
    amplify, find_records, gpuverify_command, reproduce_flags, sim_file, Amplification,
    AmplifyOptions, Finding, RecordDir, ReplayOutcome, Replayer,
};
use shadowcl_capture::{ArgValueRecord, LaunchRecord};
use shadowcl_compiler::{cache_dir, Compiler};
use shadowcl_interpreter::{parse_quantum, AddressSpace, NoObserver, Order, Schedule};
use shadowcl_shadow::progress_message;
use shadowcl_shadow::{Checks, Config, FindingKind, Sequential, Session, Side, Suppressions};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(clap::Subcommand)]
pub enum CaptureCommand {
    /// List the launches recorded in a capture folder.
    Captures {
        /// The folder given as SHADOWCL_CAPTURE (or one process folder, or one record).
        dir: PathBuf,
    },
    /// Replay a recorded launch on the software device, optionally under many schedules.
    Replay(ReplayArgs),
    /// Export a recorded launch for another tool.
    #[command(subcommand)]
    Export(ExportCommand),
}

#[derive(clap::Args)]
pub struct ReplayArgs {
    /// A record folder, e.g. DIR/app-1234/launch-0007.
    pub record: PathBuf,
    /// Run under N schedules and report output buffers that differ between them.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub schedules: usize,
    /// Work-group order: in-order, reverse or random.
    #[arg(long, value_name = "ORDER")]
    pub wg_order: Option<Order>,
    /// Work-item order between barriers: in-order, reverse or random.
    #[arg(long, value_name = "ORDER")]
    pub wi_order: Option<Order>,
    /// Instructions per work-item turn (0 = run to the barrier, 1 = lockstep, auto =
    /// lockstep where the work-items agree: the default).
    #[arg(long, value_name = "K", value_parser = parse_quantum)]
    pub quantum: Option<u32>,
    /// Seed of random orders (and of the amplifier's schedules).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Write the JSON report here.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Write a SARIF 2.1.0 file here.
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Write the HTML report here (one self-contained page).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Leave out the findings a suppressions file matches (format: docs/reports.md,
    /// "Suppressions"); the report counts them.
    #[arg(long, value_name = "FILE")]
    pub suppressions: Option<PathBuf>,
    #[arg(long, value_name = "LIST", help = Checks::usage(), long_help = Checks::help())]
    pub checks: Option<String>,
}

#[derive(clap::Subcommand)]
pub enum ExportCommand {
    /// Print the gpuverify command line that checks the launch with its observed preconditions.
    Gpuverify {
        /// A record folder.
        record: PathBuf,
    },
    /// Write an Oclgrind .sim file (run it with `oclgrind-kernel FILE`).
    Sim {
        /// A record folder.
        record: PathBuf,
        /// Write the .sim here (and the kernel source next to it as .cl); default: stdout.
        #[arg(short = 'o', long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

pub fn dispatch(cmd: CaptureCommand) -> i32 {
    match cmd {
        CaptureCommand::Captures { dir } => captures(&dir),
        CaptureCommand::Replay(args) => replay_cmd(&args),
        CaptureCommand::Export(ExportCommand::Gpuverify { record }) => export_gpuverify(&record),
        CaptureCommand::Export(ExportCommand::Sim { record, output }) => {
            export_sim(&record, output.as_deref())
        }
    }
}

fn dims(v: &[u64; 3], work_dim: u32) -> String {
    let d: Vec<String> = v[..work_dim.clamp(1, 3) as usize]
        .iter()
        .map(|x| x.to_string())
        .collect();
    format!("[{}]", d.join(","))
}

fn human_bytes(n: u64) -> String {
    if n >= 10 << 20 {
        format!("{}M", n >> 20)
    } else if n >= 10 << 10 {
        format!("{}K", n >> 10)
    } else {
        format!("{n}B")
    }
}

fn folder_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

fn arg_summary(r: &LaunchRecord) -> String {
    r.args
        .iter()
        .map(|a| match &a.value {
            ArgValueRecord::Scalar { bytes } => format!(
                "{}={}:{}",
                a.name,
                a.type_name,
                shadowcl_capture::scalar_hex(&bytes.0)
            ),
            ArgValueRecord::Buffer { size, contents, .. } => format!(
                "{}={}[{}{}]",
                a.name,
                a.address.as_str(),
                human_bytes(*size),
                if contents.is_some() { "" } else { ", no data" }
            ),
            ArgValueRecord::Local { size } => format!("{}=local[{}]", a.name, human_bytes(*size)),
            ArgValueRecord::Null => format!("{}=NULL", a.name),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn captures(dir: &Path) -> i32 {
    let records = match find_records(dir) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("shadowcl captures: {e}");
            return 2;
        }
    };
    if records.is_empty() {
        println!("no launch records under {}", dir.display());
        return 0;
    }
    let mut bad = 0;
    let mut total = 0u64;
    let mut last_parent: Option<PathBuf> = None;
    for path in &records {
        let parent = path.parent().map(Path::to_path_buf);
        if parent != last_parent {
            if let Some(p) = &parent {
                println!("{}:", p.display());
            }
            last_parent = parent;
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match RecordDir::open(path) {
            Ok(rd) => {
                let r = &rd.record;
                let bytes = folder_bytes(path);
                total += bytes;
                let local = match r.local_size_given {
                    Some(_) => dims(&r.local_size, r.work_dim),
                    None => format!("{} (NULL given)", dims(&r.local_size, r.work_dim)),
                };
                let offset = if r.global_offset.iter().any(|o| *o != 0) {
                    format!(" offset={}", dims(&r.global_offset, r.work_dim))
                } else {
                    String::new()
                };
                println!(
                    "  {name}  {}  global={} local={}{offset}  {}  {}",
                    r.kernel,
                    dims(&r.global_size, r.work_dim),
                    local,
                    human_bytes(bytes),
                    arg_summary(r)
                );
                for s in &r.skipped {
                    println!("      skipped: {s}");
                }
            }
            Err(e) => {
                bad += 1;
                println!("  {name}  UNREADABLE: {e}");
            }
        }
    }
    println!(
        "{} launch record(s), {} on disk{}",
        records.len(),
        human_bytes(total),
        if bad > 0 {
            format!(", {bad} unreadable")
        } else {
            String::new()
        }
    );
    i32::from(bad > 0)
}

fn base_schedule(args: &ReplayArgs) -> Schedule {
    let mut s = Schedule {
        parallel: false,
        threads: 1,
        ..Schedule::default()
    };
    if let Some(o) = args.wg_order {
        s.wg_order = o;
    }
    if let Some(o) = args.wi_order {
        s.wi_order = o;
    }
    if let Some(q) = args.quantum {
        s.quantum = q;
    }
    if let Some(seed) = args.seed {
        s.seed = seed;
    }
    s
}

/// The progress line over a replay's schedules: on a terminal, once the replay has run for
/// [`PROGRESS_DELAY`], the schedules done of all and the findings so far (drawn by
/// `indicatif`, cleared at the end); never anything when stderr is not a terminal.
struct Progress {
    bar: ProgressBar,
    total: usize,
    tty: bool,
    start: Instant,
}

/// Replays shorter than this show no progress line.
const PROGRESS_DELAY: Duration = Duration::from_secs(2);

impl Progress {
    fn new(total: usize, tty: bool) -> Progress {
        let bar = ProgressBar::hidden();
        bar.set_length(total as u64);
        bar.set_style(
            ProgressStyle::with_template("shadowcl replay {bar:30} {msg} [{elapsed}]")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        Progress {
            bar,
            total,
            tty,
            start: Instant::now(),
        }
    }

    /// Schedule `i` (from 0) has run; `findings`: the session's so far.
    fn step(&self, i: usize, findings: usize) {
        if !self.tty || self.total <= 1 {
            return;
        }
        let done = i as u64 + 1;
        if self.bar.is_hidden() && self.start.elapsed() >= PROGRESS_DELAY {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        self.bar.set_message(progress_message(
            done,
            self.total as u64,
            "schedules",
            findings,
        ));
        self.bar.set_position(done);
    }

    /// Writes `text` to stderr with the line (if shown) lifted out of the way meanwhile.
    fn eprint(&self, text: &str) {
        self.bar.suspend(|| eprint!("{text}"));
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

fn print_outputs(out: &ReplayOutcome) {
    for o in &out.outputs {
        let elem = o.elem_size.clamp(1, 8) as usize;
        let shown: Vec<String> = o
            .bytes
            .chunks(elem)
            .take(8)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..c.len()].copy_from_slice(c);
                let v = u64::from_le_bytes(b);
                if elem == 4 {
                    (v as u32 as i32).to_string()
                } else {
                    v.to_string()
                }
            })
            .collect();
        let more = if o.bytes.len() > 8 * elem { " …" } else { "" };
        println!(
            "  {} ({} bytes): {}{more}",
            o.name,
            o.bytes.len(),
            shown.join(" ")
        );
    }
}

fn print_finding(f: &Finding) {
    println!(
        "schedule-dependent output: kernel `{}` buffer `{}` differs at byte {} (element {}), {} byte(s) differ{}",
        f.kernel,
        f.buffer,
        f.offset,
        f.index,
        f.differing_bytes,
        if f.offsets.len() > 1 {
            format!(
                "; first offsets {}",
                f.offsets
                    .iter()
                    .map(|o| o.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            )
        } else {
            String::new()
        }
    );
    println!(
        "  {} gives {}  (reproduce: {})",
        f.first.schedule, f.first.bytes, f.first.reproduce
    );
    println!(
        "  {} gives {}  (reproduce: {})",
        f.second.schedule, f.second.bytes, f.second.reproduce
    );
    if f.count > 1 {
        println!("  {} schedule(s) differ from the first", f.count);
    }
}

/// The checker session for `--checks` / `--report` / `--sarif`; `None` when nothing is asked
/// (`--checks none` and no report file).
fn checker_session(args: &ReplayArgs) -> Result<Option<Session>, String> {
    let checks = match &args.checks {
        Some(list) => list
            .parse::<Checks>()
            .map_err(|e| format!("--checks {list}: {e}"))?,
        None => Checks::default(),
    };
    // The command line reads the environment itself, as `shadowcl run`'s application would
    // (the files and suppressions come from the flags); a bad setting stops the command.
    let env = Config::from_lookup(|k| std::env::var(k).ok())?;
    let suppressions = match &args.suppressions {
        Some(path) => Suppressions::load(path)?,
        None => env.suppressions.clone(),
    };
    let files = [&args.report, &args.sarif, &args.html];
    let wanted = checks != Checks::none()
        || files.iter().any(|f| f.is_some())
        || args.suppressions.is_some();
    Ok(wanted.then(|| {
        Session::new(Config {
            checks,
            report: args.report.clone(),
            sarif: args.sarif.clone(),
            html: args.html.clone(),
            exports: Vec::new(),
            suppressions,
            ..env
        })
    }))
}

/// The amplifier's finding in the checkers' report model (run `i` is launch `i`).
fn to_report_finding(f: &Finding, second_run: u64) -> shadowcl_shadow::Finding {
    let side = |launch: u64| Side {
        access: "output".into(),
        global_id: None,
        local_id: None,
        group_id: None,
        location: None,
        launch,
        kernel: f.kernel.clone(),
        group_copy: false,
        host: false,
        candidates: Vec::new(),
    };
    shadowcl_shadow::Finding {
        synchronisation: None,
        kind: FindingKind::ScheduleDependentOutput,
        race: None,
        scope: None,
        memory: Some(AddressSpace::Global),
        launch: 0,
        kernel: f.kernel.clone(),
        buffer: Some(f.buffer.clone()),
        offset: Some(f.offset as i64),
        index: Some(f.index as i64),
        first: Some(side(0)),
        second: Some(side(second_run)),
        count: f.count as u64,
        message: format!(
            "{} byte(s) of `{}` differ (first offsets {}): {} gives {}, {} gives {}; reproduce with `shadowcl replay REC {}`",
            f.differing_bytes,
            f.buffer,
            f.offsets
                .iter()
                .map(|o| o.to_string())
                .collect::<Vec<_>>()
                .join(","),
            f.first.schedule,
            f.first.bytes,
            f.second.schedule,
            f.second.bytes,
            f.second.reproduce
        ),
    }
}

/// Runs the amplifier with the checkers attached (each schedule is one checked launch, through
/// the session's launch path, which names every racing pair as the platform does).
fn amplify_checked(
    rp: &Replayer,
    opts: &AmplifyOptions,
    session: &Session,
    progress: &Progress,
) -> shadowcl_capture::Result<Amplification> {
    amplify(
        rp,
        opts,
        |i, device, program, launch, s| {
            session.run_launch(device, program, launch, s, i as u64, &Sequential)
        },
        |i, _, out| {
            for id in &out.allocations {
                session.buffer_released(*id);
            }
            let text = session.take_new_text();
            if !text.is_empty() {
                progress.eprint(&text);
            }
            progress.step(i, session.finding_count());
        },
    )
}

pub(crate) fn replay_cmd(args: &ReplayArgs) -> i32 {
    if args.schedules == 0 {
        eprintln!("shadowcl replay: --schedules must be at least 1");
        return 2;
    }
    let session = match checker_session(args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("shadowcl replay: {e}");
            return 2;
        }
    };
    // The command line reads the environment itself (the platform library reads it in its
    // settings): replay compiles a recorded source as the platform did.
    let env = |k: &str| std::env::var(k).ok();
    let compiler = Compiler::from_lookup(env).unwrap_or_else(|e| {
        eprintln!("shadowcl replay: {e}; using the default");
        Compiler::new().with_cache_dir(cache_dir(env))
    });
    let rp = match Replayer::open_with(&args.record, &compiler) {
        Ok(rp) => rp,
        Err(e) => {
            eprintln!("shadowcl replay: {e}");
            return 2;
        }
    };
    let r = &rp.record.record;
    eprintln!(
        "shadowcl replay: {} global={} local={}{} checks={}",
        r.kernel,
        dims(&r.global_size, r.work_dim),
        dims(&r.local_size, r.work_dim),
        if rp.compiled_from_source {
            " (compiled from the recorded source)"
        } else {
            ""
        },
        session
            .as_ref()
            .map(|s| s.checks().list())
            .unwrap_or_else(|| "none".into())
    );
    let base = base_schedule(args);
    let progress = Progress::new(args.schedules, std::io::stderr().is_terminal());
    let opts = AmplifyOptions {
        schedules: args.schedules,
        base: base.clone(),
        max_offsets: 8,
    };
    let amp = match &session {
        Some(s) => amplify_checked(&rp, &opts, s, &progress),
        None => amplify(
            &rp,
            &opts,
            |_, device, program, launch, s| device.run(program, launch, s, &NoObserver),
            |i, _, _| progress.step(i, 0),
        ),
    };
    let amp = match amp {
        Ok(a) => a,
        Err(e) => {
            eprintln!("shadowcl replay: {e}");
            return 2;
        }
    };
    for w in &amp.baseline.warnings {
        eprintln!("shadowcl replay: warning: {w}");
    }
    println!(
        "replayed {} under {} schedule(s) ({} work-items); outputs under {}:",
        r.kernel,
        amp.schedules.len(),
        amp.baseline.stats.work_items,
        base.describe()
    );
    print_outputs(&amp.baseline);
    let mut found = false;
    for (index, off) in &amp.baseline.recorded_output_mismatches {
        found = true;
        let name = r
            .args
            .get(*index as usize)
            .map(|a| a.name.as_str())
            .unwrap_or("?");
        println!(
            "replay differs from the recorded output: buffer `{name}` (arg {index}) first at byte {off}"
        );
    }
    // What the suppressions leave of the schedule-dependent outputs (the session counts the
    // others when they are added below).
    let run_of = |f: &Finding| {
        amp.schedules
            .iter()
            .position(|x| x.describe() == f.second.schedule)
            .unwrap_or(0) as u64
    };
    let suppressed = |f: &Finding| {
        session.as_ref().is_some_and(|s| {
            s.config()
                .suppressions
                .find(&to_report_finding(f, run_of(f)))
                .is_some()
        })
    };
    for f in amp.findings.iter().filter(|f| !suppressed(f)) {
        found = true;
        print_finding(f);
    }
    if args.schedules > 1 && amp.findings.is_empty() {
        println!(
            "no schedule-dependent output across {} schedules",
            args.schedules
        );
    }
    if let Some(s) = &session {
        let shown = s.finding_count();
        for f in &amp.findings {
            s.add_finding(to_report_finding(f, run_of(f)));
        }
        // The checkers' own findings (the schedule-dependent outputs were added last).
        if shown > 0 {
            found = true;
        }
        if let Err(e) = s.write_files() {
            eprintln!("shadowcl replay: cannot write the report: {e}");
            return 2;
        }
    }
    if args.schedules == 1 {
        eprintln!(
            "(rerun with: shadowcl replay {} {})",
            args.record.display(),
            reproduce_flags(&base)
        );
    }
    i32::from(found)
}

fn open_record(cmd: &str, record: &Path) -> Option<RecordDir> {
    match RecordDir::open(record) {
        Ok(rd) => Some(rd),
        Err(e) => {
            eprintln!("shadowcl {cmd}: {e}");
            None
        }
    }
}

fn export_gpuverify(record: &Path) -> i32 {
    let Some(rd) = open_record("export gpuverify", record) else {
        return 2;
    };
    let Some(src) = rd.source_path() else {
        eprintln!(
            "shadowcl export gpuverify: {}: the program was recorded as SPIR-V only; GPUVerify needs OpenCL C source",
            record.display()
        );
        return 2;
    };
    println!(
        "{}",
        gpuverify_command(&rd.record, &src.display().to_string())
    );
    0
}

fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    })
}

fn export_sim(record: &Path, output: Option<&Path>) -> i32 {
    let Some(rd) = open_record("export sim", record) else {
        return 2;
    };
    let Some(src) = rd.source_path() else {
        eprintln!(
            "shadowcl export sim: {}: the program was recorded as SPIR-V only; an Oclgrind .sim needs OpenCL C source",
            record.display()
        );
        return 2;
    };
    let program = match output {
        None => absolute(&src),
        Some(out) => {
            let mut cl = out.with_extension("cl");
            if cl == out {
                cl = PathBuf::from(format!("{}.cl", out.display()));
            }
            if let Err(e) = std::fs::copy(&src, &cl) {
                eprintln!("shadowcl export sim: {}: {e}", cl.display());
                return 2;
            }
            absolute(&cl)
        }
    };
    let sim = match sim_file(&rd, &program.display().to_string()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("shadowcl export sim: {e}");
            return 2;
        }
    };
    for w in &sim.warnings {
        eprintln!("shadowcl export sim: note: {w}");
    }
    match output {
        None => print!("{}", sim.text),
        Some(out) => {
            if let Err(e) = std::fs::write(out, &sim.text) {
                eprintln!("shadowcl export sim: {}: {e}", out.display());
                return 2;
            }
            eprintln!(
                "wrote {} (program {}); run: oclgrind-kernel {}",
                out.display(),
                program.display(),
                out.display()
            );
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use shadowcl_capture::DataMode;
    use shadowcl_capture::{
        AddressQualifier, ArgData, ArgInput, BufferArg, CaptureConfig, Contents, LaunchInput,
        ProgramInput, Recorder,
    };

    #[derive(Parser)]
    struct T {
        #[command(subcommand)]
        c: CaptureCommand,
    }

    const RACY: &str = "__kernel void shift(__global int* data, __global int* out) {
        size_t g = get_group_id(0), n = get_local_size(0), l = get_local_id(0);
        data[g * n + l] = (int)g + 1;
        out[g * n + l] = data[((g + 1) % get_num_groups(0)) * n + l];
    }";
    const CALM: &str = "__kernel void shift(__global int* data, __global int* out) {
        size_t i = get_global_id(0);
        data[i] = (int)i;
        out[i] = data[i] * 2;
    }";

    fn record(root: &Path, src: &str) -> PathBuf {
        let rec = Recorder::new(CaptureConfig {
            root: root.to_path_buf(),
            data: DataMode::Inputs,
            kernels: None,
            max_bytes: None,
            process_name: "app-1".into(),
        })
        .unwrap();
        let zeros = [0u8; 64];
        let buf = |i: u32, name: &'static str| ArgInput {
            index: i,
            name,
            address: AddressQualifier::Global,
            access: "none",
            type_name: "int*",
            type_qualifier: 0,
            value: ArgData::Buffer(BufferArg {
                size: 64,
                flags: 1,
                identity: i as u64,
                origin: 0,
                contents: Contents::Bytes(&zeros),
            }),
        };
        let args = [buf(0, "data"), buf(1, "out")];
        let id = rec
            .record(&LaunchInput {
                program: ProgramInput {
                    source: Some(src),
                    spirv: None,
                    build_options: "",
                },
                kernel: "shift",
                work_dim: 1,
                global_offset: [0; 3],
                global_size: [16, 1, 1],
                local_size_given: Some([4, 1, 1]),
                local_size: [4, 1, 1],
                args: &args,
            })
            .unwrap()
            .unwrap();
        rec.dir().join(shadowcl_capture::launch_dir_name(id.0))
    }

    fn run(args: &[&str]) -> i32 {
        let mut v = vec!["shadowcl"];
        v.extend_from_slice(args);
        dispatch(T::try_parse_from(v).unwrap().c)
    }

    #[test]
    fn parses_the_documented_command_lines() {
        let t = T::try_parse_from([
            "x",
            "replay",
            "D/launch-0007",
            "--schedules",
            "20",
            "--wg-order",
            "random",
            "--seed",
            "3",
            "--quantum",
            "2",
            "--checks",
            "races",
        ])
        .unwrap();
        let CaptureCommand::Replay(r) = t.c else {
            panic!("not replay")
        };
        assert_eq!(r.schedules, 20);
        assert_eq!(r.wg_order, Some(Order::Random));
        let s = base_schedule(&r);
        assert_eq!((s.seed, s.quantum, s.parallel), (3, 2, false));
        assert!(T::try_parse_from(["x", "replay", "R", "--wg-order", "sideways"]).is_err());
        assert!(matches!(
            T::try_parse_from(["x", "export", "sim", "R", "-o", "f.sim"])
                .unwrap()
                .c,
            CaptureCommand::Export(ExportCommand::Sim {
                output: Some(_),
                ..
            })
        ));
        assert!(matches!(
            T::try_parse_from(["x", "export", "gpuverify", "R"])
                .unwrap()
                .c,
            CaptureCommand::Export(ExportCommand::Gpuverify { .. })
        ));
    }

    #[test]
    fn replay_exit_codes_and_report() {
        let tmp = tempfile::tempdir().unwrap();
        let racy = record(&tmp.path().join("a"), RACY);
        let calm = record(&tmp.path().join("b"), CALM);
        let report = tmp.path().join("r.json");
        let racy_s = racy.to_str().unwrap();
        let rep = report.to_str().unwrap();
        // Without checkers one schedule shows nothing; the race checker sees the race.
        assert_eq!(run(&["replay", racy_s, "--checks", "none"]), 0);
        let sarif = tmp.path().join("r.sarif");
        assert_eq!(
            run(&["replay", racy_s, "--sarif", sarif.to_str().unwrap()]),
            1
        );
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
        assert_eq!(s["version"], "2.1.0");
        // The amplifier alone (no checkers) finds it with 10 schedules, and the report says so.
        assert_eq!(
            run(&[
                "replay",
                racy_s,
                "--schedules",
                "10",
                "--checks",
                "none",
                "--report",
                rep
            ]),
            1
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        assert_eq!(v["tool"], "shadowcl");
        assert_eq!(v["launches"][0]["kernel"], "shift");
        let f = &v["findings"][0];
        assert_eq!(f["kind"], "schedule-dependent-output", "{v:#}");
        assert_eq!(f["buffer"], "out");
        assert_eq!(f["launch"], 0);
        // With checkers too, both kinds are reported.
        assert_eq!(
            run(&["replay", racy_s, "--schedules", "10", "--report", rep]),
            1
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        let kinds: Vec<&str> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["kind"].as_str())
            .collect();
        assert!(kinds.contains(&"schedule-dependent-output"), "{kinds:?}");
        assert!(kinds.contains(&"data-race"), "{kinds:?}");
        // Source locations name the record's own program.cl (not the deleted compile folder).
        let race = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["kind"] == "data-race")
            .unwrap();
        let file = race["first"]["location"]["file"].as_str().unwrap_or("");
        let want = absolute(&racy).join("program.cl");
        assert_eq!(file, want.to_str().unwrap(), "{race:#}");
        assert!(race["first"]["source"]
            .as_str()
            .is_some_and(|l| l.contains("data")));
        // The race-free twin is clean under checkers and 10 schedules.
        assert_eq!(
            run(&[
                "replay",
                calm.to_str().unwrap(),
                "--schedules",
                "10",
                "--report",
                rep
            ]),
            0
        );
        // Replay names the same racing pairs under every schedule, as the platform does.
        let pairs = |flags: &[&str]| {
            let mut a = vec!["replay", racy_s, "--report", rep];
            a.extend_from_slice(flags);
            assert_eq!(run(&a), 1, "{flags:?}");
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
            let mut pairs: Vec<(String, String, u64, u64)> = v["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["kind"] == "data-race")
                .map(|f| {
                    let line = |side: &str| f[side]["location"]["line"].as_u64().unwrap_or(0);
                    let (a, b) = (line("first"), line("second"));
                    let name = |k: &str| f[k].as_str().unwrap_or("").to_string();
                    (name("race"), name("buffer"), a.min(b), a.max(b))
                })
                .collect();
            pairs.sort();
            pairs.dedup();
            pairs
        };
        let in_order = pairs(&[]);
        assert!(
            !in_order.is_empty() && in_order.iter().all(|p| p.2 > 0),
            "every pair names both lines: {in_order:?}"
        );
        for flags in [
            &["--wg-order", "reverse", "--wi-order", "reverse"][..],
            &["--wg-order", "random", "--seed", "5", "--quantum", "1"],
        ] {
            assert_eq!(pairs(flags), in_order, "{flags:?}");
        }
        assert_eq!(run(&["replay", racy_s, "--checks", "bogus"]), 2);
        assert_eq!(run(&["replay", "/nonexistent/launch-0000"]), 2);
        assert_eq!(run(&["replay", racy_s, "--schedules", "0"]), 2);
    }

    #[test]
    fn captures_and_exports() {
        let tmp = tempfile::tempdir().unwrap();
        let rec = record(tmp.path(), CALM);
        assert_eq!(run(&["captures", tmp.path().to_str().unwrap()]), 0);
        let sim = tmp.path().join("out/x.sim");
        std::fs::create_dir_all(sim.parent().unwrap()).unwrap();
        assert_eq!(
            run(&[
                "export",
                "sim",
                rec.to_str().unwrap(),
                "-o",
                sim.to_str().unwrap()
            ]),
            0
        );
        let text = std::fs::read_to_string(&sim).unwrap();
        let cl = tmp.path().join("out/x.cl");
        assert!(cl.is_file());
        assert!(text.contains(&format!("{}\nshift\n", absolute(&cl).display())));
        assert_eq!(run(&["export", "gpuverify", rec.to_str().unwrap()]), 0);
        // A damaged record shows up as unreadable (exit 1), others still listed.
        let broken = tmp.path().join("app-1/launch-0009");
        std::fs::create_dir_all(&broken).unwrap();
        std::fs::write(broken.join("record.json"), "{\"format\":").unwrap();
        assert_eq!(run(&["captures", tmp.path().to_str().unwrap()]), 1);
        assert_eq!(run(&["export", "sim", broken.to_str().unwrap()]), 2);
    }
}
