//! `shadowcl`: run OpenCL applications under ShadowCL, and work with recorded launches.

use clap::{Parser, Subcommand};

mod capture_cmds;
mod run;

#[derive(Parser)]
#[command(
    name = "shadowcl",
    version,
    about = "Find data races and other bugs in OpenCL kernels"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
}

fn main() {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Run(args) => run::run(args),
        Command::Install(args) => run::install(args),
        Command::Capture(cmd) => capture_cmds::dispatch(cmd),
        Command::Formats => {
            for e in shadowcl_shadow::EXPORTERS {
                println!("{:<8} .{:<7} {}", e.name(), e.extension(), e.description());
            }
            0
        }
    };
    std::process::exit(code);
}
