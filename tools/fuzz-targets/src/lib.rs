//! Fuzz targets: each takes arbitrary bytes and must return without panicking, hanging or
//! exhausting memory, whatever the bytes are. `fuzz/` drives them with libFuzzer
//! (`ci/fuzz TARGET SECONDS`); `tests/smoke.rs` runs the seeds, the saved regressions and a
//! few thousand deterministic mutations on the stable toolchain in `ci/test`.
//!
//! A target returns normally for every input: errors are expected answers, panics are bugs.

use std::path::Path;

use shadowcl_interpreter::{
    ArgAddress, ArgValue, Buffer, Device, Launch, NoObserver, Order, Program, Schedule,
};
use shadowcl_shadow::{Config, HostAccess, Sequential, Session, Unordered};

/// Instructions one fuzzed launch may run: enough for the corpus kernels at the small sizes
/// used here, small enough that a looping kernel ends quickly.
const INSTRUCTION_LIMIT: u64 = 200_000;

/// A fuzz target: any bytes in, no panic out.
pub type Target = fn(&[u8]);

/// The targets by name, for the smoke test and `ci/fuzz`.
pub const TARGETS: &[(&str, Target)] = &[
    ("spirv_load", spirv_load),
    ("launch", launch),
    ("capture_record", capture_record),
    ("build_options", build_options),
];

/// SPIR-V load, lowering and IR verification.
pub fn spirv_load(data: &[u8]) {
    if let Ok(p) = Program::load(data) {
        for k in p.kernels() {
            let _ = (k.name.len(), k.args.len());
        }
    }
}

/// Launch parameters in the first [`LAUNCH_HEADER`] bytes of a `launch` input.
#[derive(Clone, Copy, Debug)]
pub struct LaunchParams {
    /// Run under the race/bounds/uninitialised checker.
    pub checked: bool,
    /// The schedule's quantum: 0 (run-to-barrier), 1 (lockstep), 3, or `Schedule::AUTO`.
    pub quantum: u32,
    pub reverse_items: bool,
    pub random_groups: bool,
    pub kernel: u8,
    pub global: u64,
    pub local: u64,
    /// Bytes per buffer argument.
    pub buffer_len: usize,
    /// Fill byte for buffers and by-value arguments.
    pub fill: u8,
}

/// Bytes of launch parameters before the SPIR-V module in a `launch` input.
pub const LAUNCH_HEADER: usize = 8;

impl LaunchParams {
    pub fn decode(h: &[u8; LAUNCH_HEADER]) -> LaunchParams {
        let local = u64::from(h[2] % 16) + 1;
        LaunchParams {
            checked: h[0] & 1 != 0,
            quantum: match (h[0] & 2 != 0, h[0] & 16 != 0) {
                (false, false) => 0,
                (true, false) => 1,
                (false, true) => Schedule::AUTO,
                (true, true) => 3,
            },
            reverse_items: h[0] & 4 != 0,
            random_groups: h[0] & 8 != 0,
            kernel: h[3],
            // Up to 4 groups: small enough for 200,000 instructions to reach the end.
            global: local * (u64::from(h[1] % 4) + 1),
            local,
            buffer_len: 4 * (usize::from(h[4]) + 1),
            fill: h[5],
        }
    }

    pub fn encode(&self) -> [u8; LAUNCH_HEADER] {
        let flags = u8::from(self.checked)
            | u8::from(matches!(self.quantum, 1 | 3)) << 1
            | u8::from(matches!(self.quantum, Schedule::AUTO | 3)) << 4
            | u8::from(self.reverse_items) << 2
            | u8::from(self.random_groups) << 3;
        let local = (self.local.clamp(1, 16) - 1) as u8;
        let groups = (self.global / self.local.max(1)).clamp(1, 4) as u8 - 1;
        let words = (self.buffer_len / 4).clamp(1, 256) - 1;
        [
            flags,
            groups,
            local,
            self.kernel,
            words as u8,
            self.fill,
            0,
            0,
        ]
    }
}

/// Load a module and run one of its kernels: `[LaunchParams][SPIR-V]`.
pub fn launch(data: &[u8]) {
    let Some((h, spirv)) = data.split_first_chunk::<LAUNCH_HEADER>() else {
        return;
    };
    let lp = LaunchParams::decode(h);
    let Ok(program) = Program::load(spirv) else {
        return;
    };
    let kernels = program.kernels();
    if kernels.is_empty() {
        return;
    }
    let kernel = &kernels[usize::from(lp.kernel) % kernels.len()];
    let mut buffers = vec![];
    let args = kernel
        .args
        .iter()
        .map(|a| match a.address {
            ArgAddress::Global | ArgAddress::Constant => {
                let Some(b) = Buffer::new(lp.buffer_len) else {
                    return ArgValue::Local(0);
                };
                let _ = b.fill(0, lp.buffer_len, &[lp.fill]);
                buffers.push(b.clone());
                ArgValue::Buffer {
                    buffer: b,
                    offset: 0,
                    size: lp.buffer_len as u64,
                }
            }
            ArgAddress::Local => ArgValue::Local(lp.buffer_len as u64),
            ArgAddress::Private => ArgValue::Bytes(vec![lp.fill; a.size.max(1)]),
        })
        .collect();
    let l = Launch {
        kernel: kernel.name.clone(),
        work_dim: 1,
        global_offset: [0; 3],
        global_size: [lp.global, 1, 1],
        local_size: [lp.local, 1, 1],
        args,
    };
    let schedule = Schedule {
        quantum: lp.quantum,
        wi_order: if lp.reverse_items {
            Order::Reverse
        } else {
            Order::InOrder
        },
        wg_order: if lp.random_groups {
            Order::Random
        } else {
            Order::InOrder
        },
        seed: u64::from(lp.fill),
        threads: 1,
        ..Schedule::default()
    };
    let device = Device::new(1).with_instruction_limit(INSTRUCTION_LIMIT);
    if lp.checked {
        // Reports need no user files: without a source folder every input's session would
        // scan the working directory's kernel files (a tenth of the target's time).
        let session = Session::new(Config {
            source_dirs: vec![Path::new("/nonexistent/shadowcl-fuzz-sources").into()],
            ..Config::default()
        });
        for b in &buffers {
            session.buffer_created(b.id(), lp.buffer_len as u64, true);
        }
        let checker = session.launch(&program, 1, &schedule.describe(), &Sequential);
        let _ = device.run(&program, &l, &schedule, &checker);
        drop(checker);
        // A host command unordered with the launch, over part of each buffer: it meets the
        // launch's records as a transfer on another queue would.
        let accesses: Vec<HostAccess> = buffers
            .iter()
            .map(|b| HostAccess {
                param: "buffer",
                alloc: b.id(),
                offset: u64::from(lp.fill) % (lp.buffer_len as u64 + 1),
                len: lp.buffer_len as u64,
                write: lp.reverse_items,
            })
            .collect();
        session.host_command(0, "clEnqueueReadBuffer", &accesses, &Unordered);
        let _ = session.report();
    } else {
        let _ = device.run(&program, &l, &schedule, &NoObserver);
    }
}

/// A launch record's `record.json`: parsed, validated, its geometry and images decoded.
pub fn capture_record(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(record) = serde_json::from_str::<shadowcl_capture::LaunchRecord>(text) else {
        return;
    };
    if record.validate(Path::new("fuzz")).is_ok() {
        let _ = record.num_groups();
        for a in &record.args {
            if let Some(i) = &a.image {
                let _ = i.to_desc();
            }
        }
    }
}

/// Build and link option strings as an application passes them.
pub fn build_options(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = shadowcl_compiler::split_options(text);
    let _ = shadowcl_compiler::translate_options(text);
    let _ = shadowcl_compiler::parse_link_options(text);
}

/// A small deterministic generator (splitmix64): mutations reproduce from their seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// Word values that tend to sit on boundaries of counts, ids and sizes.
const INTERESTING: [u32; 10] = [
    0,
    1,
    2,
    3,
    0xFF,
    0xFFFF,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFE,
    0xFFFF_FFFF,
];

/// One to four mutations of `data`, SPIR-V-aware where it helps: words are overwritten with
/// boundary values or with other words of the module (ids, types, opcodes).
pub fn mutate(data: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut d = data.to_vec();
    for _ in 0..=rng.below(4) {
        if d.is_empty() {
            d.push(rng.next_u64() as u8);
            continue;
        }
        let at = rng.below(d.len());
        let word_at = at & !3;
        match rng.below(7) {
            0 => d[at] ^= 1 << rng.below(8),
            1 => d[at] = rng.next_u64() as u8,
            2 if word_at + 4 <= d.len() => {
                let v = INTERESTING[rng.below(INTERESTING.len())];
                d[word_at..word_at + 4].copy_from_slice(&v.to_le_bytes());
            }
            3 if word_at + 4 <= d.len() => {
                let from = rng.below(d.len() / 4) * 4;
                let w: [u8; 4] = [d[from], d[from + 1], d[from + 2], d[from + 3]];
                d[word_at..word_at + 4].copy_from_slice(&w);
            }
            4 => d.truncate(at),
            5 => {
                let end = (at + 4 * (1 + rng.below(8))).min(d.len());
                d.drain(at..end);
            }
            _ => {
                let end = (word_at + 4 * (1 + rng.below(8))).min(d.len());
                let chunk = d[word_at..end].to_vec();
                let to = rng.below(d.len() / 4 + 1) * 4;
                let to = to.min(d.len());
                d.splice(to..to, chunk);
            }
        }
    }
    d
}

/// OpenCL C source compiled to SPIR-V as the platform's tests do (clang-15, llvm-spirv-15),
/// or `None` when either tool fails (a seed is only a starting point).
pub fn compile_seed(source: &Path, opt: &str) -> Option<Vec<u8>> {
    use std::process::{Command, Stdio};
    // One folder per call: tests compile seeds from several threads at once.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("shadowcl-fuzz-seed-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let (bc, spv) = (dir.join("seed.bc"), dir.join("seed.spv"));
    let ok = Command::new("clang-15")
        .args(["-c", "-target", "spir64", "-cl-std=CL1.2", opt, "-g"])
        .args(["-Xclang", "-cl-kernel-arg-info", "-emit-llvm", "-o"])
        .arg(&bc)
        .arg(source)
        .stderr(Stdio::null())
        .status()
        .ok()?
        .success()
        && Command::new("llvm-spirv-15")
            .arg(&bc)
            .arg("-o")
            .arg(&spv)
            .stderr(Stdio::null())
            .status()
            .ok()?
            .success();
    let out = if ok { std::fs::read(&spv).ok() } else { None };
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// The seed inputs of `target`: SPIR-V compiled from every `stride`-th kernel of the corpora
/// under `repo/tests/kernels` (at -O0 and -O2, with a few launch headers for `launch`), or
/// the files under `repo/tools/fuzz-targets/seeds/<target>`.
pub fn seeds(target: &str, repo: &Path, stride: usize) -> Vec<(String, Vec<u8>)> {
    let mut out = vec![];
    match target {
        "spirv_load" | "launch" => {
            let mut kernels = vec![];
            for corpus in ["diff", "races"] {
                collect_cl(&repo.join("tests/kernels").join(corpus), &mut kernels);
            }
            kernels.sort();
            for (i, k) in kernels.iter().enumerate().step_by(stride.max(1)) {
                for opt in ["-O0", "-O2"] {
                    let Some(spv) = compile_seed(k, opt) else {
                        continue;
                    };
                    let name = format!(
                        "{}{opt}",
                        k.file_stem().unwrap_or_default().to_string_lossy()
                    );
                    if target == "spirv_load" {
                        out.push((name, spv));
                        continue;
                    }
                    let lp = LaunchParams {
                        checked: i % 2 == 0,
                        quantum: [0, 1, Schedule::AUTO][i % 3],
                        reverse_items: i % 3 == 0,
                        random_groups: i % 5 == 0,
                        kernel: 0,
                        global: 32,
                        local: 16,
                        buffer_len: 256,
                        fill: i as u8,
                    };
                    let mut input = lp.encode().to_vec();
                    input.extend_from_slice(&spv);
                    out.push((name, input));
                }
            }
        }
        _ => {
            let dir = repo.join("tools/fuzz-targets/seeds").join(target);
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                if let Ok(bytes) = std::fs::read(e.path()) {
                    out.push((e.file_name().to_string_lossy().into_owned(), bytes));
                }
            }
            out.sort();
        }
    }
    out
}

fn collect_cl(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_cl(&p, out);
        } else if p.extension().is_some_and(|x| x == "cl") {
            out.push(p);
        }
    }
}
