//! Runs one kernel launch: the single place where the executor is called, so checkers and
//! capture can be attached here later.

use shadowcl_interpreter::{Device, ExecError, Launch, LaunchStats, NoObserver, Program, Schedule};
use std::sync::OnceLock;

fn device(schedule: &Schedule) -> &'static Device {
    static DEVICE: OnceLock<Device> = OnceLock::new();
    DEVICE.get_or_init(|| Device::new(schedule.threads))
}

/// Runs `launch` of `program` to completion under the schedule the environment selects.
pub fn run(program: &Program, launch: &Launch) -> Result<LaunchStats, ExecError> {
    let schedule = Schedule::from_env();
    tracing::debug!(
        "launch {} global {:?} local {:?} offset {:?}",
        launch.kernel,
        launch.global_size,
        launch.local_size,
        launch.global_offset
    );
    device(&schedule).run(program, launch, &schedule, &NoObserver)
}
