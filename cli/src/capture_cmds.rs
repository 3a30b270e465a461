//! `shadowcl captures | replay | export` (owned by the capture work).

#[derive(clap::Subcommand)]
pub enum CaptureCommand {
    /// List the launches recorded in a capture folder.
    Captures {
        /// The folder given as SHADOWCL_CAPTURE.
        dir: std::path::PathBuf,
    },
}

pub fn dispatch(cmd: CaptureCommand) -> i32 {
    match cmd {
        CaptureCommand::Captures { dir } => {
            eprintln!("shadowcl captures: not built yet ({})", dir.display());
            2
        }
    }
}
