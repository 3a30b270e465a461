//! `shadowcl run` and `shadowcl install`.
//!
//! `run` does nothing the library cannot do alone: it registers libshadowcl.so with the ICD
//! loader through a temporary vendors folder (`OCL_ICD_VENDORS`), sets the `SHADOWCL_*`
//! variables (docs/design.md, "Contracts") and runs the application.

use shadowcl_interpreter::{parse_quantum, quantum_name, Order};
use shadowcl_shadow::Checks;
use std::path::{Path, PathBuf};
use std::process::Command;

const LIB_NAME: &str = "libshadowcl.so";
const ICD_FILE: &str = "shadowcl.icd";
const SYSTEM_VENDORS: &str = "/etc/OpenCL/vendors";

#[derive(clap::Args, Debug)]
#[command(after_help = "\
Exit status: the application's, or --error-exitcode's value when the run reported findings.
The library itself reads the same settings from SHADOWCL_* variables, so an application run
with OCL_ICD_VENDORS pointing at a shadowcl.icd file behaves the same without this command.
Library lookup: $SHADOWCL_LIB, then next to this binary, then ../lib, ../lib/<arch>-linux-gnu
(the Debian package's) and target/{release,debug}.")]
pub struct RunArgs {
    #[arg(long, value_name = "LIST", help = Checks::usage(), long_help = Checks::help())]
    pub checks: Option<Checks>,
    /// Also report benign races (unsynchronised writes of the value already in memory, and
    /// reads that can see only that value).
    #[arg(long)]
    pub benign: bool,
    /// Write the JSON report here (rewritten after each kernel and at exit).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Write a SARIF 2.1.0 report here (for CI code-scanning views).
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Write an HTML report here: one self-contained page to open in a browser, with each
    /// finding's source lines highlighted.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    #[arg(long, value_name = "FORMAT=FILE", help = export_help(), value_parser = parse_export)]
    pub export: Vec<String>,
    /// Work-group order: in-order, reverse or random.
    #[arg(long, value_name = "ORD")]
    pub wg_order: Option<Order>,
    /// Work-item order between barriers: in-order, reverse or random.
    #[arg(long, value_name = "ORD")]
    pub wi_order: Option<Order>,
    /// Instructions a work-item runs before the next one gets a turn (0 = run to barrier,
    /// 1 = lockstep, auto = lockstep where the work-items agree: the default).
    #[arg(long, value_name = "K", value_parser = parse_quantum)]
    pub quantum: Option<u32>,
    /// Seed for random orders.
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Run work-groups one after another (deterministic schedules).
    #[arg(long)]
    pub serial: bool,
    /// Folder(s) of the application's kernel files: reports name them and their lines
    /// instead of the cache's copy of the program [default: the working directory].
    #[arg(long, value_name = "DIR")]
    pub source_dir: Vec<PathBuf>,
    /// Leave out findings matching the rules in FILE (one rule a line, e.g.
    /// `kind:data-race kernel:reduce* buffer:scratch file:*.cl:42`; see docs/reports.md); the
    /// report counts what each rule suppressed. A malformed file is an error.
    #[arg(long, value_name = "FILE")]
    pub suppressions: Option<PathBuf>,
    /// Check only the kernels matching these comma-separated globs (`reduce*,scan`); launches
    /// of other kernels run unchecked, at checks-off speed (and are still captured).
    #[arg(long, value_name = "PATTERNS")]
    pub kernels: Option<String>,
    /// Seconds a kernel launch may run before the watchdog ends it (its event fails, the
    /// application goes on); `off` for none [default: $SHADOWCL_TIMEOUT, else 300].
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<String>,
    /// Pass-through capture: run on this vendor platform instead of ShadowCL's interpreter
    /// (a vendor ICD library path, or a platform-name substring such as `Portable`), forwarding
    /// every call and recording launches with --capture. Checks then happen on replay.
    #[arg(long, value_name = "NAME")]
    pub forward: Option<String>,
    /// Record every kernel launch into this folder (see `shadowcl captures`).
    #[arg(long, value_name = "DIR")]
    pub capture: Option<PathBuf>,
    /// After the run, replay every launch under N seeded schedules and report output buffers
    /// that differ between them (schedule-dependent output). Launches are captured into
    /// --capture DIR, or a temporary folder.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub schedules: usize,
    /// Exit with N when there were findings (default: the application's exit status).
    #[arg(long, value_name = "N")]
    pub error_exitcode: Option<i32>,
    /// The application and its arguments.
    #[arg(last = true, required = true, value_name = "APP ARGS")]
    pub app: Vec<String>,
}

#[derive(clap::Args, Debug)]
#[command(after_help = "\
Debian's ocl-icd reads only /etc/OpenCL/vendors and OCL_ICD_VENDORS: after --user, export the
printed OCL_ICD_VENDORS line (it replaces the system folder, so only ShadowCL is listed).")]
pub struct InstallArgs {
    /// Write under ~/.local/etc/OpenCL/vendors instead of /etc/OpenCL/vendors.
    #[arg(long)]
    pub user: bool,
    /// The library to register [default: found as for `run`].
    #[arg(long, value_name = "PATH")]
    pub lib: Option<PathBuf>,
}

/// Folders that may hold libshadowcl.so, given the shadowcl binary's folder, in order.
fn library_candidates(exe_dir: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![
        exe_dir.to_path_buf(),
        exe_dir.join("../lib"),
        // The Debian package's layout (`ci/package`): /usr/bin/shadowcl and the library in
        // the multiarch folder, /usr/lib/x86_64-linux-gnu.
        exe_dir.join("../lib").join(multiarch_dir()),
    ];
    // A cargo build: target/<profile>/shadowcl next to target/{release,debug}/libshadowcl.so.
    for profile in ["release", "debug"] {
        dirs.push(exe_dir.join("..").join(profile));
    }
    dirs.into_iter().map(|d| d.join(LIB_NAME)).collect()
}

/// Debian's multiarch folder name for the architecture this binary was built for.
fn multiarch_dir() -> String {
    format!("{}-linux-gnu", std::env::consts::ARCH)
}

/// Finds libshadowcl.so: `explicit` (`$SHADOWCL_LIB` or `--lib`), else next to the binary.
fn find_library(explicit: Option<PathBuf>, exe: Option<PathBuf>) -> Result<PathBuf, String> {
    if let Some(p) = explicit {
        return match p.is_file() {
            true => check_library(absolute(&p)),
            false => Err(format!("{} does not exist", p.display())),
        };
    }
    let exe = exe.ok_or("cannot tell where the shadowcl binary is; set SHADOWCL_LIB")?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let tried = library_candidates(dir);
    let found = tried.iter().find(|p| p.is_file()).map(|p| absolute(p));
    found.map(check_library).unwrap_or_else(|| {
            let list: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
            Err(format!(
                "cannot find {LIB_NAME} (tried {}); build it with `cargo build -p shadowcl-icd` or set SHADOWCL_LIB",
                list.join(", ")
            ))
        })
}

/// Refuses files that are not ELF objects, so a typo never gets registered with the loader.
fn check_library(p: PathBuf) -> Result<PathBuf, String> {
    let mut magic = [0u8; 4];
    let ok = std::fs::File::open(&p)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
        .is_ok();
    match ok && &magic == b"\x7fELF" {
        true => Ok(p),
        false => Err(format!("{} is not a shared library", p.display())),
    }
}

fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn library_from_env() -> Result<PathBuf, String> {
    find_library(
        std::env::var_os("SHADOWCL_LIB").map(PathBuf::from),
        std::env::current_exe().ok(),
    )
}

/// `--export`'s help, naming the registered formats.
fn export_help() -> String {
    format!(
        "Also write the report in FORMAT to FILE, after each kernel and at exit \
         (repeatable; formats: {}; `shadowcl formats` describes them)",
        shadowcl_shadow::exporter_names()
    )
}

/// One `--export FORMAT=FILE`, checked against the registered formats.
pub(crate) fn parse_export(v: &str) -> Result<String, String> {
    if v.contains(',') {
        // SHADOWCL_EXPORT separates entries with commas.
        return Err("one FORMAT=FILE per --export, without commas".into());
    }
    match shadowcl_shadow::parse_exports(v)?.as_slice() {
        [_] => Ok(v.to_string()),
        _ => Err(format!(
            "`{v}` is not FORMAT=FILE (formats: {})",
            shadowcl_shadow::exporter_names()
        )),
    }
}

/// Seconds a launch may run under `shadowcl run` unless told otherwise: far past any real
/// kernel on the interpreter, short enough that a spinning kernel does not hang a CI job.
const DEFAULT_TIMEOUT: u32 = 300;

/// The `SHADOWCL_*` variables for the application, in the library's syntax.
fn child_env(args: &RunArgs, report: &Path) -> Vec<(&'static str, String)> {
    let mut env = vec![("SHADOWCL_REPORT", report.display().to_string())];
    if args.checks.is_some() || args.benign {
        let mut checks = args.checks.unwrap_or_default();
        checks.benign |= args.benign;
        env.push(("SHADOWCL_CHECKS", checks.list()));
    }
    let opt = |k: &'static str, v: Option<String>| v.map(|v| (k, v));
    env.extend(
        [
            opt(
                "SHADOWCL_SARIF",
                args.sarif.as_ref().map(|p| p.display().to_string()),
            ),
            opt(
                "SHADOWCL_HTML",
                args.html.as_ref().map(|p| p.display().to_string()),
            ),
            opt(
                "SHADOWCL_EXPORT",
                (!args.export.is_empty()).then(|| args.export.join(",")),
            ),
            opt("SHADOWCL_WG_ORDER", args.wg_order.map(|o| o.to_string())),
            opt("SHADOWCL_WI_ORDER", args.wi_order.map(|o| o.to_string())),
            opt("SHADOWCL_QUANTUM", args.quantum.map(quantum_name)),
            opt("SHADOWCL_SEED", args.seed.map(|s| s.to_string())),
            opt("SHADOWCL_THREADS", args.threads.map(|t| t.to_string())),
            opt(
                "SHADOWCL_WG_SERIAL",
                args.serial.then(|| "true".to_string()),
            ),
            opt(
                "SHADOWCL_CAPTURE",
                args.capture.as_ref().map(|p| p.display().to_string()),
            ),
            opt("SHADOWCL_FORWARD", args.forward.clone()),
            opt(
                "SHADOWCL_SOURCE_DIR",
                (!args.source_dir.is_empty()).then(|| {
                    args.source_dir
                        .iter()
                        .map(|d| std::fs::canonicalize(d).unwrap_or_else(|_| d.clone()))
                        .map(|d| d.display().to_string())
                        .collect::<Vec<_>>()
                        .join(":")
                }),
            ),
            opt(
                "SHADOWCL_SUPPRESSIONS",
                args.suppressions
                    .as_ref()
                    .map(|p| absolute(p).display().to_string()),
            ),
            opt("SHADOWCL_KERNELS", args.kernels.clone()),
            opt(
                "SHADOWCL_TIMEOUT",
                args.timeout.clone().or_else(|| {
                    std::env::var_os("SHADOWCL_TIMEOUT")
                        .is_none()
                        .then(|| DEFAULT_TIMEOUT.to_string())
                }),
            ),
        ]
        .into_iter()
        .flatten(),
    );
    env
}

/// Number of findings in a JSON report; `None` when there is no readable report (the
/// application never created an OpenCL context, or crashed before the first kernel).
fn report_findings(path: &Path) -> Option<usize> {
    let text = std::fs::read_to_string(path).ok()?;
    let r = shadowcl_shadow::Report::from_json(&text).ok()?;
    Some(r.findings.len() + r.dropped as usize)
}

/// A private temporary folder, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        let base = std::env::temp_dir();
        for n in 0..1000u32 {
            let p = base.join(format!("shadowcl-run-{}-{n}", std::process::id()));
            match std::fs::create_dir(&p) {
                Ok(()) => return Ok(TempDir(p)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::other("no free temporary folder name"))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn exit_status_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    // Like a shell: a signal-killed application exits 128 + signal.
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1)
}

pub fn run(args: RunArgs) -> i32 {
    match library_from_env().and_then(|lib| run_with_library(&args, &lib)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("shadowcl run: {e}");
            2
        }
    }
}

fn run_with_library(args: &RunArgs, lib: &Path) -> Result<i32, String> {
    // Checked here so a malformed file stops the run with its file:line, rather than the
    // library falling back to its defaults inside the application.
    if let Some(file) = &args.suppressions {
        shadowcl_shadow::Suppressions::load(file)?;
    }
    let tmp = TempDir::new().map_err(|e| format!("cannot create a temporary folder: {e}"))?;
    let vendors = tmp.0.join("vendors");
    std::fs::create_dir(&vendors)
        .and_then(|()| std::fs::write(vendors.join(ICD_FILE), format!("{}\n", lib.display())))
        .map_err(|e| {
            format!(
                "cannot write the vendors folder in {}: {e}",
                tmp.0.display()
            )
        })?;
    let report = args
        .report
        .clone()
        .unwrap_or_else(|| tmp.0.join("report.json"));
    // A stale report from an earlier run must not count as this run's findings.
    let _ = std::fs::remove_file(&report);
    let (program, rest) = args
        .app
        .split_first()
        .ok_or("no application given (shadowcl run -- APP ARGS...)")?;
    // Amplification replays recorded launches, so it needs capture on.
    let capture = match (&args.capture, args.schedules > 1) {
        (Some(dir), _) => Some(dir.clone()),
        (None, true) => Some(tmp.0.join("capture")),
        (None, false) => None,
    };
    let mut cmd = Command::new(program);
    cmd.args(rest)
        .env("OCL_ICD_VENDORS", &vendors)
        .envs(child_env(args, &report));
    if let Some(dir) = &capture {
        cmd.env("SHADOWCL_CAPTURE", dir);
    }
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    let code = exit_status_code(status);
    let amplified = match (&capture, args.schedules > 1) {
        (Some(dir), true) => amplify_launches(dir, args)?,
        _ => 0,
    };
    let found = report_findings(&report).unwrap_or(0) + amplified;
    Ok(match args.error_exitcode {
        Some(n) if found > 0 => n,
        _ => code,
    })
}

/// Replays every launch recorded under `dir` with `args.schedules` schedules (races were
/// already checked live, so only output differences are looked for). Returns how many launches
/// had schedule-dependent output.
fn amplify_launches(dir: &Path, args: &RunArgs) -> Result<usize, String> {
    let records = shadowcl_capture::find_records(dir).map_err(|e| {
        format!(
            "cannot list the launches recorded in {}: {e}",
            dir.display()
        )
    })?;
    eprintln!(
        "shadowcl run: replaying {} launch(es) under {} schedules each",
        records.len(),
        args.schedules
    );
    let mut dependent = 0;
    for record in records {
        let replay = crate::capture_cmds::ReplayArgs {
            record,
            schedules: args.schedules,
            wg_order: None,
            wi_order: None,
            quantum: None,
            seed: args.seed,
            report: None,
            sarif: None,
            html: None,
            // The run's suppressions cover the schedule-dependent outputs too.
            suppressions: args.suppressions.clone(),
            checks: Some("none".into()),
        };
        match crate::capture_cmds::replay_cmd(&replay) {
            0 => {}
            1 => dependent += 1,
            _ => eprintln!("shadowcl run: could not replay {}", replay.record.display()),
        }
    }
    Ok(dependent)
}

/// Where `install` writes: the system folder, or the user's (`$HOME/.local/etc/OpenCL/vendors`).
fn install_dir(user: bool, home: Option<PathBuf>) -> Result<PathBuf, String> {
    if !user {
        return Ok(PathBuf::from(SYSTEM_VENDORS));
    }
    home.map(|h| h.join(".local/etc/OpenCL/vendors"))
        .ok_or_else(|| "HOME is not set".to_string())
}

pub fn install(args: InstallArgs) -> i32 {
    let lib = match args.lib.clone() {
        Some(p) => find_library(Some(p), None),
        None => library_from_env(),
    };
    let result = lib.and_then(|lib| {
        let dir = install_dir(args.user, std::env::var_os("HOME").map(PathBuf::from))?;
        let file = dir.join(ICD_FILE);
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&file, format!("{}\n", lib.display())))
            .map_err(|e| {
                let hint = if args.user {
                    ""
                } else {
                    " (run as root, or use --user)"
                };
                format!("cannot write {}: {e}{hint}", file.display())
            })?;
        Ok((file, dir))
    });
    match result {
        Ok((file, dir)) => {
            eprintln!("shadowcl install: wrote {}", file.display());
            if args.user {
                // ocl-icd does not look in the user's folder by itself.
                println!("export OCL_ICD_VENDORS={}", dir.display());
            }
            0
        }
        Err(e) => {
            eprintln!("shadowcl install: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        run: RunArgs,
    }

    fn parse(argv: &[&str]) -> Result<RunArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("run").chain(argv.iter().copied())).map(|c| c.run)
    }

    fn fake_library(dir: &Path) -> PathBuf {
        let lib = dir.join(LIB_NAME);
        std::fs::write(&lib, b"\x7fELF (only the magic number)").unwrap();
        lib
    }

    #[test]
    fn export_formats_come_from_the_registry() {
        let Err(e) = parse(&["--export", "xml=r.xml", "--", "app"]) else {
            panic!("an unknown format is refused");
        };
        assert!(e.to_string().contains("text, json, sarif, html"), "{e}");
        assert!(parse(&["--export", "json", "--", "app"]).is_err());
        assert!(export_help().contains("text, json, sarif, html"));
    }

    #[test]
    fn options_become_shadowcl_variables() {
        let a = parse(&[
            "--checks",
            "races,uninit",
            "--benign",
            "--sarif",
            "o.sarif",
            "--html",
            "o.html",
            "--export",
            "text=r.txt",
            "--export",
            "json=copy.json",
            "--wg-order",
            "random",
            "--wi-order",
            "reverse",
            "--quantum",
            "3",
            "--seed",
            "9",
            "--threads",
            "2",
            "--serial",
            "--timeout",
            "off",
            "--capture",
            "caps",
            "--forward",
            "Portable",
            "--suppressions",
            "/known.supp",
            "--kernels",
            "reduce*,scan",
            "--",
            "app",
            "-x",
        ])
        .unwrap();
        assert_eq!(a.app, ["app", "-x"]);
        let env = child_env(&a, Path::new("r.json"));
        let get = |k: &str| env.iter().find(|(n, _)| *n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("SHADOWCL_CHECKS"), Some("races,benign,uninit"));
        assert_eq!(get("SHADOWCL_REPORT"), Some("r.json"));
        assert_eq!(get("SHADOWCL_SARIF"), Some("o.sarif"));
        assert_eq!(get("SHADOWCL_HTML"), Some("o.html"));
        assert_eq!(get("SHADOWCL_EXPORT"), Some("text=r.txt,json=copy.json"));
        assert_eq!(get("SHADOWCL_WG_ORDER"), Some("random"));
        assert_eq!(get("SHADOWCL_WI_ORDER"), Some("reverse"));
        assert_eq!(get("SHADOWCL_QUANTUM"), Some("3"));
        assert_eq!(get("SHADOWCL_SEED"), Some("9"));
        assert_eq!(get("SHADOWCL_THREADS"), Some("2"));
        assert_eq!(get("SHADOWCL_WG_SERIAL"), Some("true"));
        assert_eq!(get("SHADOWCL_CAPTURE"), Some("caps"));
        assert_eq!(get("SHADOWCL_FORWARD"), Some("Portable"));
        assert_eq!(get("SHADOWCL_TIMEOUT"), Some("off"));
        assert_eq!(get("SHADOWCL_SUPPRESSIONS"), Some("/known.supp"));
        assert_eq!(get("SHADOWCL_KERNELS"), Some("reduce*,scan"));
        // Defaults are left to the library but for the watchdog's (unless the caller's
        // environment sets one).
        let d = child_env(&parse(&["--", "app"]).unwrap(), Path::new("r"));
        if std::env::var_os("SHADOWCL_TIMEOUT").is_none() {
            assert_eq!(d.len(), 2);
            assert!(d.contains(&("SHADOWCL_TIMEOUT", "300".to_string())));
        } else {
            assert_eq!(d.len(), 1);
        }
    }

    #[test]
    fn bad_values_are_usage_errors_not_panics() {
        assert!(parse(&["--checks", "racez", "--", "app"])
            .unwrap_err()
            .to_string()
            .contains("racez"));
        assert!(parse(&["--wg-order", "sideways", "--", "app"]).is_err());
        assert!(parse(&[]).is_err());
    }

    #[test]
    fn library_is_found_next_to_the_binary_or_in_a_cargo_profile() {
        let dir = std::env::temp_dir().join(format!("shadowcl-lib-{}", std::process::id()));
        let debug = dir.join("debug");
        let release = dir.join("release");
        std::fs::create_dir_all(&debug).unwrap();
        std::fs::create_dir_all(&release).unwrap();
        assert!(find_library(None, Some(debug.join("shadowcl")))
            .unwrap_err()
            .contains(LIB_NAME));
        let lib = fake_library(&release);
        assert_eq!(
            find_library(None, Some(debug.join("shadowcl"))).unwrap(),
            absolute(&lib)
        );
        let near = fake_library(&debug);
        assert_eq!(
            find_library(None, Some(debug.join("shadowcl"))).unwrap(),
            absolute(&near)
        );
        assert!(find_library(Some(dir.join("nope.so")), None).is_err());
        let text = dir.join("text.so");
        std::fs::write(&text, "hello").unwrap();
        assert!(find_library(Some(text), None)
            .unwrap_err()
            .contains("not a shared library"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn library_is_found_in_the_debian_packages_layout() {
        let dir = std::env::temp_dir().join(format!("shadowcl-deb-{}", std::process::id()));
        let bin = dir.join("usr/bin");
        let lib_dir = dir.join("usr/lib").join(multiarch_dir());
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&lib_dir).unwrap();
        assert!(find_library(None, Some(bin.join("shadowcl"))).is_err());
        let lib = fake_library(&lib_dir);
        assert_eq!(
            find_library(None, Some(bin.join("shadowcl"))).unwrap(),
            absolute(&lib)
        );
        if cfg!(target_arch = "x86_64") {
            assert_eq!(multiarch_dir(), "x86_64-linux-gnu");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn runs_the_app_with_the_vendors_folder_and_maps_exit_codes() {
        let dir = std::env::temp_dir().join(format!("shadowcl-runapp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let lib = fake_library(&dir);
        let out = dir.join("seen");
        // The app checks the .icd file names the library, then exits 5.
        let script = format!(
            "cat \"$OCL_ICD_VENDORS/{ICD_FILE}\" > {}; exit 5",
            out.display()
        );
        let a = parse(&["--", "sh", "-c", &script]).unwrap();
        assert_eq!(run_with_library(&a, &lib).unwrap(), 5);
        assert_eq!(
            std::fs::read_to_string(&out).unwrap().trim(),
            lib.display().to_string()
        );

        // A report with findings turns into --error-exitcode; without the option the app's
        // status wins.
        let racy = "echo '{\"launches\":[],\"findings\":[{\"kind\":\"data-race\",\
                    \"launch\":0,\"kernel\":\"k\",\"count\":1,\"message\":\"\"}]}' \
                    > \"$SHADOWCL_REPORT\"";
        let a = parse(&["--error-exitcode", "7", "--", "sh", "-c", racy]).unwrap();
        assert_eq!(run_with_library(&a, &lib).unwrap(), 7);
        let a = parse(&["--", "sh", "-c", racy]).unwrap();
        assert_eq!(run_with_library(&a, &lib).unwrap(), 0);
        let clean = "echo '{\"launches\":[],\"findings\":[]}' > \"$SHADOWCL_REPORT\"";
        let a = parse(&["--error-exitcode", "7", "--", "sh", "-c", clean]).unwrap();
        assert_eq!(run_with_library(&a, &lib).unwrap(), 0);
        // A user report path is kept.
        let kept = dir.join("r.json");
        let a = parse(&["--report", kept.to_str().unwrap(), "--", "sh", "-c", racy]).unwrap();
        run_with_library(&a, &lib).unwrap();
        assert_eq!(report_findings(&kept), Some(1));
        // A malformed suppressions file stops the run before the application starts, naming
        // its file and line.
        let supp = dir.join("bad.supp");
        std::fs::write(&supp, "kind:data-race\nkind:data-race buffr:x\n").unwrap();
        let a = parse(&[
            "--suppressions",
            supp.to_str().unwrap(),
            "--",
            "sh",
            "-c",
            &format!("touch {}", out.display()),
        ])
        .unwrap();
        std::fs::remove_file(&out).unwrap();
        let err = run_with_library(&a, &lib).unwrap_err();
        assert!(
            err.starts_with(&format!("{}:2: unknown field `buffr`", supp.display())),
            "{err}"
        );
        assert!(!out.exists(), "the application ran");
        // A missing application is an error message.
        let a = parse(&["--", "/nonexistent/app"]).unwrap();
        assert!(run_with_library(&a, &lib)
            .unwrap_err()
            .contains("/nonexistent/app"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn install_folders() {
        assert_eq!(install_dir(false, None).unwrap(), Path::new(SYSTEM_VENDORS));
        assert_eq!(
            install_dir(true, Some("/home/u".into())).unwrap(),
            Path::new("/home/u/.local/etc/OpenCL/vendors")
        );
        assert!(install_dir(true, None).is_err());
    }
}
