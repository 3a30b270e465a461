//! `shadowcl`: run OpenCL applications under ShadowCL, and work with recorded launches.

use clap::{CommandFactory, Parser, Subcommand};
use std::path::PathBuf;

mod capture_cmds;
mod package_files;
mod report_cmd;
mod run;

const ABOUT: &str = "Find data races and other bugs in OpenCL kernels";

/// The command line users see: `--help`, the man pages and the completions come from it.
#[derive(Parser)]
#[command(name = "shadowcl", version, about = ABOUT)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// What `main` parses: `Cli`'s commands and the packagers' one, kept out of `Cli` because
/// clap_complete's zsh completions would offer even a hidden subcommand.
#[derive(Parser)]
#[command(name = "shadowcl", version, about = ABOUT)]
enum Invocation {
    #[command(flatten)]
    User(Box<Command>),
    /// Write the man pages and shell completions into DIR (`ci/package` puts them in the
    /// Debian package).
    #[command(hide = true)]
    GeneratePackageFiles {
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
}

#[derive(Subcommand)]
enum Command {
    /// Run an application with ShadowCL as its OpenCL platform.
    Run(run::RunArgs),
    /// Register libshadowcl.so with the ICD loader (writes a vendors .icd file).
    Install(run::InstallArgs),
    #[command(flatten)]
    Capture(capture_cmds::CaptureCommand),
    /// List the report formats (`run --export FORMAT=FILE`, `SHADOWCL_EXPORT`).
    Formats,
    /// Render a saved JSON report again: as text, or in any format with --export.
    Report(report_cmd::ReportArgs),
}

fn main() {
    let command = match Invocation::parse() {
        Invocation::User(command) => *command,
        Invocation::GeneratePackageFiles { dir } => {
            let code = match package_files::generate(Cli::command(), &dir) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("shadowcl generate-package-files: {e}");
                    1
                }
            };
            std::process::exit(code);
        }
    };
    let code = match command {
        Command::Run(args) => run::run(args),
        Command::Install(args) => run::install(args),
        Command::Capture(cmd) => capture_cmds::dispatch(cmd),
        Command::Report(args) => report_cmd::report(args),
        Command::Formats => {
            for e in shadowcl_shadow::EXPORTERS {
                println!("{:<8} .{:<7} {}", e.name(), e.extension(), e.description());
            }
            0
        }
    };
    std::process::exit(code);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_definitions_are_valid() {
        Cli::command().debug_assert();
        Invocation::command().debug_assert();
    }

    #[test]
    fn package_files_cover_every_user_command_and_hide_the_packaging_one() {
        let dir = tempfile::tempdir().unwrap();
        package_files::generate(Cli::command(), dir.path()).unwrap();
        let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();
        let run_page = read("man/shadowcl-run.1");
        assert!(run_page.contains("error\\-exitcode"), "{run_page}");
        for sub in Cli::command().get_subcommands() {
            let name = sub.get_name();
            assert!(dir.path().join(format!("man/shadowcl-{name}.1")).is_file());
            assert!(read("man/shadowcl.1").contains(&format!("shadowcl\\-{name}")));
        }
        for file in ["shadowcl.bash", "_shadowcl", "shadowcl.fish"] {
            let text = read(&format!("completions/{file}"));
            assert!(text.contains("replay") && text.contains("error-exitcode"));
            assert!(!text.contains("generate-package-files"), "{file}");
        }
        // The packaging command parses, but only through `Invocation`.
        assert!(Invocation::try_parse_from(["shadowcl", "generate-package-files", "d"]).is_ok());
        assert!(Cli::try_parse_from(["shadowcl", "generate-package-files", "d"]).is_err());
        assert!(Invocation::try_parse_from(["shadowcl", "formats"]).is_ok());
    }
}
