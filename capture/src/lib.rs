//! Launch records, replay and exporters (see DESIGN.md).
//!
//! * [`Recorder`]: what the platform library calls for every launch (`SHADOWCL_CAPTURE*`);
//!   writes `DIR/<exe>-<pid>/launch-NNNN/` folders atomically plus GPUVerify's `log.json`.
//! * [`RecordDir`]: reads and validates a record folder.
//! * [`replay`] / [`Replayer`]: runs a record on the software device with any observer;
//!   [`amplify`]: the schedule amplifier (`schedule-dependent-output` findings).
//! * [`gpuverify_command`], [`gpuverify::instantiation`], [`sim_file`]: exporters.

pub mod error;
pub mod gpuverify;
pub mod record;
pub mod recorder;
pub mod replay;
pub mod sim;

pub use error::{CaptureError, Result};
pub use gpuverify::gpuverify_command;
pub use record::{
    find_records, AddressQualifier, ArgRecord, ArgValueRecord, DataMode, LaunchRecord, RecordDir,
};
pub use recorder::{
    launch_dir_name, ArgData, ArgInput, BufferArg, CaptureConfig, Contents, LaunchInput,
    ProgramInput, RecordId, Recorder,
};
pub use replay::{
    amplify, amplify_plain, replay, schedules_for, Amplification, AmplifyOptions, Finding,
    OutputBuffer, ReplayOptions, ReplayOutcome, Replayer, RunLaunch,
};
pub use sim::{sim_file, SimExport};
