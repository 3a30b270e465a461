//! Launch records, replay and exporters (see docs/design.md, "Capture and replay").
//!
//! * [`Recorder`]: what the platform library calls for every launch (`SHADOWCL_CAPTURE*`);
//!   writes `DIR/<exe>-<pid>/launch-NNNN/` folders atomically plus GPUVerify's `log.json`.
//! * [`RecordDir`]: reads and validates a record folder.
//! * [`replay`] / [`Replayer`]: runs a record on the software device with any observer;
//!   [`amplify`]: the schedule amplifier (`schedule-dependent-output` findings).
//! * [`gpuverify_command`], [`sim_file`]: exporters.

mod error;
mod gpuverify;
mod record;
mod recorder;
mod replay;
mod sim;

pub use error::{CaptureError, Result};
pub use gpuverify::{gpuverify_command, scalar_hex};
pub use record::{
    find_records, AddressQualifier, ArgRecord, ArgValueRecord, DataMode, HexBytes, ImageRecord,
    LaunchRecord, ProcessInfo, ProgramRecord, RecordDir,
};
pub use recorder::{
    launch_dir_name, ArgData, ArgInput, BufferArg, CaptureConfig, Contents, LaunchInput,
    ProgramInput, RecordId, Recorder, TYPE_CONST,
};
pub use replay::{
    amplify, amplify_plain, replay, reproduce_flags, schedules_for, Amplification, AmplifyOptions,
    Finding, OutputBuffer, ReplayOptions, ReplayOutcome, Replayer, RunLaunch, ScheduleRun,
};
pub use sim::{sim_file, SimExport};

/// What the integration tests (`capture/tests/`) call beyond the API above: rebuilding
/// GPUVerify's log from records, and reading Oclgrind's buffer dumps. The modules are
/// private so that each item has one path; add an item here when a test needs one.
pub mod test_support {
    pub use crate::gpuverify::log_from_records;
    pub use crate::sim::parse_oclgrind_dump;
}
