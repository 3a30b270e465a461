//! The NDRange executor: work-groups over worker threads, work-items interleaved at barriers.
//!
//! One file per concern:
//! - `launch`: [`Device::run`]: sizes, argument binding, worker threads; the launch-wide
//!   state and the builtins it answers.
//! - `group_order`: the order groups start in, generated (never listed).
//! - `group`: one work-group: its items' identities and start state, its schedule, its
//!   lockstep and barrier phases.
//! - `state`: what a group, an item and a worker keep (frames, private and local memory).
//! - `access`: a work-item's memory accesses: fast paths, faults, reports, atomics.
//! - `dispatch`: the run-to-barrier interpreter loop, alone.
//! - `cold`: the ops that loop runs out of line; `ext`: OpenCL.std instructions;
//!   `texels`: image texels; `async_copy`: group copies and waits.
//! - `collective`: work-group functions' results, at a barrier's release.
//! - `lockstep/`: quantum 1, one op for the whole group at a time (driver, hand-over, and
//!   one file per op family).

mod access;
mod async_copy;
mod cold;
mod collective;
mod dispatch;
mod ext;
mod group;
mod group_order;
mod launch;
mod lockstep;
mod state;
mod texels;

use std::sync::atomic::{AtomicU64, Ordering};

/// The software device: a pool of worker threads that runs launches.
#[derive(Debug)]
pub struct Device {
    threads: usize,
    /// Worker threads, started at the first parallel launch (see `Device::pool`).
    pool: std::sync::OnceLock<Option<rayon_core::ThreadPool>>,
    limit: Option<u64>,
    time_limit: Option<std::time::Duration>,
    count_all: bool,
    local_memory_limit: u64,
    /// Work-groups of every launch started on this device, and of those the ones finished
    /// (or never to run: an aborted launch adds its rest): read by [`Device::groups`] for a
    /// progress display. One relaxed add per group, no lock.
    groups_started: AtomicU64,
    groups_done: AtomicU64,
}

/// [`Device::groups`]: work-groups since the device was made, over all its launches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupCounts {
    /// Work-groups of the launches started so far.
    pub started: u64,
    /// Of those, the ones that have finished; equal to `started` when no launch is running.
    pub done: u64,
}

/// Local memory a work-group may have unless the platform says otherwise
/// ([`shadowcl_limits::Limits::checked_local_memory`]): far above any real device's (tens of
/// KiB), low enough that a malformed module cannot exhaust the host.
pub const DEFAULT_LOCAL_MEMORY_LIMIT: u64 = shadowcl_limits::LIMITS.checked_local_memory;

impl Device {
    /// A device with `threads` workers (0 = all cores).
    pub fn new(threads: usize) -> Device {
        Device {
            threads,
            pool: std::sync::OnceLock::new(),
            limit: None,
            time_limit: None,
            count_all: false,
            local_memory_limit: DEFAULT_LOCAL_MEMORY_LIMIT,
            groups_started: AtomicU64::new(0),
            groups_done: AtomicU64::new(0),
        }
    }

    /// Work-groups started and finished on this device so far, over all its launches (also
    /// those running now, on other threads): a progress display polls it.
    pub fn groups(&self) -> GroupCounts {
        // `done` first: read the other way a group could finish between the two loads and
        // show more done than started.
        let done = self.groups_done.load(Ordering::Relaxed);
        let started = self.groups_started.load(Ordering::Relaxed);
        GroupCounts {
            started: started.max(done),
            done,
        }
    }

    /// Refuses (with [`ExecError::InvalidLaunch`](crate::ExecError::InvalidLaunch)) a launch whose local memory, module-scope
    /// variables and `__local` arguments together, exceeds `bytes` per work-group (default
    /// [`DEFAULT_LOCAL_MEMORY_LIMIT`]; a platform passes its `CL_DEVICE_LOCAL_MEM_SIZE`).
    pub fn with_local_memory_limit(mut self, bytes: u64) -> Device {
        self.local_memory_limit = bytes;
        self
    }

    /// Counts executed instructions in [`LaunchStats::instructions`](crate::LaunchStats::instructions) under every schedule.
    /// Without it, run-to-barrier launches with no instruction limit leave that count at 0:
    /// counting costs them about a tenth of their time.
    pub fn with_instruction_count(mut self) -> Device {
        self.count_all = true;
        self
    }

    /// Aborts a launch (with [`ExecError::Aborted`](crate::ExecError::Aborted)) once it has executed more than `limit`
    /// instructions in total: a watchdog against kernels that never terminate.
    pub fn with_instruction_limit(mut self, limit: u64) -> Device {
        self.limit = Some(limit);
        self
    }

    /// Aborts a launch (with [`ExecError::Aborted`](crate::ExecError::Aborted)) that is still
    /// running `limit` after it started: the watchdog for kernels that spin forever. Turns are
    /// then counted and sliced, as under an instruction limit, so a loop without barriers is
    /// stopped too.
    pub fn with_time_limit(mut self, limit: std::time::Duration) -> Device {
        self.time_limit = Some(limit);
        self
    }
}
