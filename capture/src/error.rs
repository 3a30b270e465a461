//! Errors of the capture crate. Every error about a record names the record folder and the
//! field (or file) that is wrong, so a user can fix or discard the record.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// A file could not be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A record on disk is malformed; `msg` names the field or file.
    #[error("{}: bad record: {msg}", .path.display())]
    BadRecord { path: PathBuf, msg: String },
    /// The platform library handed the recorder an inconsistent launch.
    #[error("cannot record launch: {0}")]
    BadInput(String),
    /// `record_outputs` for an id this recorder does not know (or already completed).
    #[error("no pending launch record with id {0}")]
    UnknownRecord(u32),
    /// OpenCL C could not be compiled (clang / llvm-spirv log attached).
    #[error("compiling the recorded program failed: {0}")]
    Compile(String),
    /// The interpreter refused the recorded SPIR-V.
    #[error("{}: the recorded program does not load: {msg}", .path.display())]
    Load { path: PathBuf, msg: String },
    /// The launch failed while running.
    #[error("{}: replay failed: {msg}", .path.display())]
    Exec { path: PathBuf, msg: String },
    /// The record cannot be exported to the requested format.
    #[error("{0}")]
    Unsupported(String),
}

impl CaptureError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> CaptureError {
        CaptureError::Io {
            path: path.into(),
            source,
        }
    }
    pub(crate) fn bad(path: impl Into<PathBuf>, msg: impl Into<String>) -> CaptureError {
        CaptureError::BadRecord {
            path: path.into(),
            msg: msg.into(),
        }
    }
}

pub type Result<T, E = CaptureError> = std::result::Result<T, E>;
