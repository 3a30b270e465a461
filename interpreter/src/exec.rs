//! The NDRange executor (owned by the interpreter work; this is the agreed API).

use crate::{ExecError, Launch, LaunchStats, Observer, Program, Schedule};

/// The software device: a pool of worker threads that runs launches.
#[derive(Debug)]
pub struct Device {
    threads: usize,
}

impl Device {
    /// A device with `threads` workers (0 = all cores).
    pub fn new(threads: usize) -> Device {
        Device { threads }
    }

    /// Runs one launch to completion under `schedule`, reporting to `observer`.
    /// Printf output goes to the process's stdout.
    pub fn run<O: Observer>(
        &self,
        program: &Program,
        launch: &Launch,
        schedule: &Schedule,
        observer: &O,
    ) -> Result<LaunchStats, ExecError> {
        let _ = (program, schedule, observer, self.threads);
        Err(ExecError::NoSuchKernel(launch.kernel.clone()))
    }
}
