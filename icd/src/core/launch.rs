//! Runs one kernel launch: the single place where the executor meets the checkers
//! (`shadowcl-shadow`) and launch capture (`shadowcl-capture`).
//!
//! The checker session and the recorder are process-wide, made from the settings read once
//! (`core::settings`; docs/design.md, "Contracts"). Memory commands call the `buffer_*`
//! hooks here so the uninitialised-read check knows which bytes the host wrote.

use crate::consts::*;
use crate::core::order::{self, Clock, Point};
use crate::core::progress;
use crate::core::settings::settings;
use crate::types::{cl_command_type, cl_mem_flags};
use shadowcl_capture::{ProgramInput, Recorder};
use shadowcl_interpreter::{
    AllocId, Buffer, Device, ExecError, KernelInfo, Launch, LaunchStats, NoObserver, Program,
    Schedule,
};
use shadowcl_shadow::{HostAccess, KernelAccess, LaunchOrder, Sequential, Session};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::sync::OnceLock;

fn device(schedule: &Schedule) -> &'static Device {
    static DEVICE: OnceLock<Device> = OnceLock::new();
    DEVICE.get_or_init(|| {
        let device = Device::new(schedule.threads);
        match settings().timeout {
            Some(limit) => device.with_time_limit(limit),
            None => device,
        }
    })
}

/// The checker session, or `None` when `SHADOWCL_CHECKS=none` (and no report file is set).
/// A malformed setting (a bad `SHADOWCL_CHECKS`, an unreadable or malformed
/// `SHADOWCL_SUPPRESSIONS` file) is reported once, with the settings, and the defaults used.
fn session() -> Option<&'static Session> {
    if cfg!(feature = "without-checker") {
        return None;
    }
    static SESSION: OnceLock<Option<Session>> = OnceLock::new();
    SESSION
        .get_or_init(|| {
            let config = settings().checker.clone();
            let any = config.checks.any();
            // Every report file, whichever setting named it, gets its final write at exit.
            let files = !config.files().is_empty();
            if files {
                // SAFETY: atexit is the C library's; the callback catches every panic, so
                // nothing unwinds into C.
                if unsafe { atexit(write_reports_at_exit) } != 0 {
                    tracing::warn!("cannot register the final report write at exit");
                }
                crate::core::signals::write_reports_on(write_reports_on_signal);
            }
            // Reports are still written when checks are off, so tools reading them see launches.
            (any || files).then(|| Session::new(config))
        })
        .as_ref()
}

fn findings_so_far() -> usize {
    session().map_or(0, Session::finding_count)
}

extern "C" {
    fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
}

/// After each launch the report files are rewritten only now and then
/// (`Session::write_files_throttled`); the final state is written when the process exits.
extern "C" fn write_reports_at_exit() {
    let _ = std::panic::catch_unwind(|| {
        if let Some(s) = session() {
            if let Err(e) = s.write_files() {
                eprintln!("ShadowCL: could not write the report: {e}");
            }
            if let Some(line) = s.summary() {
                eprintln!("{line}");
            }
        }
    });
}

/// A signal is ending the process: the report as it stands, marked incomplete, with what
/// the launches still running found (they have two seconds to hand it over).
fn write_reports_on_signal(signal: &str) {
    if let Some(s) = session() {
        if let Err(e) = s.interrupted(signal, std::time::Duration::from_secs(2)) {
            eprintln!("ShadowCL: could not write the report: {e}");
        }
        if let Some(line) = s.summary() {
            eprintln!("{line} (ended by {signal})");
        }
    }
}

pub(crate) fn recorder() -> Option<&'static Recorder> {
    static RECORDER: OnceLock<Option<Recorder>> = OnceLock::new();
    RECORDER
        .get_or_init(|| {
            let config = settings().capture.clone()?;
            Recorder::new(config)
                .map_err(|e| eprintln!("ShadowCL: capture disabled: {e}"))
                .ok()
        })
        .as_ref()
}

/// A buffer was created; `from_host`: its bytes came from the application.
pub fn buffer_created(buffer: &Buffer, from_host: bool) {
    if let Some(s) = session() {
        s.buffer_created(buffer.id(), buffer.len() as u64, from_host);
    }
}

/// A memory object with creation `flags` now covers `size` bytes of `storage` from `offset`:
/// the checkers report kernel writes to it when it is `CL_MEM_READ_ONLY`, reads when it is
/// `CL_MEM_WRITE_ONLY`.
pub fn memory_object_created(storage: &Buffer, offset: usize, size: usize, flags: cl_mem_flags) {
    let access = if flags & CL_MEM_READ_ONLY != 0 {
        KernelAccess::ReadOnly
    } else if flags & CL_MEM_WRITE_ONLY != 0 {
        KernelAccess::WriteOnly
    } else {
        KernelAccess::ReadWrite
    };
    if let Some(s) = session() {
        s.memory_object_created(storage.id(), offset as u64, size as u64, access);
    }
}

/// The application asked for a host `access` (`read`, `write`) that the memory object's
/// creation `flag` forbids; `call` is its entry point. The call fails; the report says why.
pub fn host_access_refused(storage: &Buffer, offset: usize, call: &str, access: &str, flag: &str) {
    if let Some(s) = session() {
        s.host_access_refused(storage.id(), offset as u64, call, access, flag);
    }
}

/// The host wrote `len` bytes at `offset` of a buffer's storage (creation, a mapping): the
/// bytes are initialised. Host commands report through [`host_wrote`].
pub fn buffer_written_by_host(id: AllocId, offset: usize, len: usize) {
    if let Some(s) = session() {
        s.buffer_written_by_host(id, offset as u64, len as u64);
    }
}

thread_local! {
    /// What the host command running on this thread read and wrote, when it is checked
    /// ([`host_command`]).
    static HOST_ACCESSES: RefCell<Option<Vec<HostAccess>>> = const { RefCell::new(None) };
}

/// Notes an access of the running host command (adjacent rows of one rectangle join);
/// false when the command is not checked.
fn note_host_access(a: HostAccess) -> bool {
    HOST_ACCESSES.with(|h| {
        let mut h = h.borrow_mut();
        let Some(list) = h.as_mut() else {
            return false;
        };
        match list.last_mut() {
            Some(l)
                if (l.alloc, l.param, l.write) == (a.alloc, a.param, a.write)
                    && l.offset + l.len == a.offset =>
            {
                l.len += a.len
            }
            _ => list.push(a),
        }
        true
    })
}

/// The running host command read `len` bytes at `offset` of `storage` through its parameter
/// `param` (`buffer`, `src_buffer`, `src_image`, ...).
pub fn host_read(storage: &Buffer, param: &'static str, offset: usize, len: usize) {
    let _ = note_host_access(HostAccess {
        param,
        alloc: storage.id(),
        offset: offset as u64,
        len: len as u64,
        write: false,
    });
}

/// The running host command wrote `len` bytes at `offset` of `storage` through `param`: the
/// bytes are initialised, and checked for races when the command is (the records it then
/// writes mark them initialised: one pass over the shadow, not two).
pub fn host_wrote(storage: &Buffer, param: &'static str, offset: usize, len: usize) {
    let noted = note_host_access(HostAccess {
        param,
        alloc: storage.id(),
        offset: offset as u64,
        len: len as u64,
        write: true,
    });
    if !noted {
        buffer_written_by_host(storage.id(), offset, len);
    }
}

/// The entry point of a host command that moves bytes of memory objects, by command type.
fn host_command_name(command_type: cl_command_type) -> Option<&'static str> {
    Some(match command_type {
        CL_COMMAND_READ_BUFFER => "clEnqueueReadBuffer",
        CL_COMMAND_WRITE_BUFFER => "clEnqueueWriteBuffer",
        CL_COMMAND_COPY_BUFFER => "clEnqueueCopyBuffer",
        CL_COMMAND_FILL_BUFFER => "clEnqueueFillBuffer",
        CL_COMMAND_READ_BUFFER_RECT => "clEnqueueReadBufferRect",
        CL_COMMAND_WRITE_BUFFER_RECT => "clEnqueueWriteBufferRect",
        CL_COMMAND_COPY_BUFFER_RECT => "clEnqueueCopyBufferRect",
        CL_COMMAND_READ_IMAGE => "clEnqueueReadImage",
        CL_COMMAND_WRITE_IMAGE => "clEnqueueWriteImage",
        CL_COMMAND_COPY_IMAGE => "clEnqueueCopyImage",
        CL_COMMAND_FILL_IMAGE => "clEnqueueFillImage",
        CL_COMMAND_COPY_IMAGE_TO_BUFFER => "clEnqueueCopyImageToBuffer",
        CL_COMMAND_COPY_BUFFER_TO_IMAGE => "clEnqueueCopyBufferToImage",
        CL_COMMAND_MAP_BUFFER => "clEnqueueMapBuffer",
        CL_COMMAND_MAP_IMAGE => "clEnqueueMapImage",
        CL_COMMAND_UNMAP_MEM_OBJECT => "clEnqueueUnmapMemObject",
        _ => return None,
    })
}

/// Runs `work`, the command of `command_type` that the executor started on this thread. A
/// host command that moves bytes is then checked for races with the kernel launches that the
/// queues and events do not order it with (`Session::host_command`): only when such launches
/// can exist at all (`order::may_overlap`: an out-of-order queue, or several queues), so a
/// program with one in-order queue pays nothing.
pub fn host_command<R>(command_type: cl_command_type, work: impl FnOnce() -> R) -> R {
    let checked = host_command_name(command_type).and_then(|name| {
        let s = session()?;
        let c = s.checks();
        (order::may_overlap() && c.race_records()).then_some((s, name))
    });
    let Some((s, name)) = checked else {
        return work();
    };
    /// Ends the noting, also when the command panics (the executor catches it).
    struct Noting;
    impl Drop for Noting {
        fn drop(&mut self) {
            HOST_ACCESSES.with(|h| *h.borrow_mut() = None);
        }
    }
    HOST_ACCESSES.with(|h| *h.borrow_mut() = Some(Vec::new()));
    let noting = Noting;
    let r = work();
    let accesses = HOST_ACCESSES
        .with(|h| h.borrow_mut().take())
        .unwrap_or_default();
    drop(noting);
    match order::current() {
        Some((point, clock)) if !accesses.is_empty() => {
            let order = CommandOrder::new(point, clock);
            s.host_command(next_host_command_id(), name, &accesses, &order);
            report(s);
        }
        // Not on an executor (never, for enqueued commands): the writes still count.
        _ => {
            for a in accesses.iter().filter(|a| a.write) {
                s.buffer_written_by_host(a.alloc, a.offset, a.len);
            }
        }
    }
    r
}

fn next_host_command_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The last reference to a buffer's storage is gone.
pub fn buffer_released(id: AllocId) {
    if let Some(s) = session() {
        s.buffer_released(id);
    }
}

/// A launch found an argument naming a buffer the application already released.
pub fn use_after_release(kernel: &str, arg: &str) -> u64 {
    let id = next_launch_id();
    if let Some(s) = session() {
        s.use_after_release(id, kernel, arg);
        report(s);
    }
    id
}

fn next_launch_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The program a launch belongs to, as capture records it.
pub struct ProgramText<'a> {
    pub source: Option<&'a str>,
    pub spirv: Option<&'a [u8]>,
    pub options: &'a str,
}

/// How a launch was enqueued, beyond the launch itself.
pub struct Enqueued<'a> {
    pub program: ProgramText<'a>,
    pub kernel: &'a KernelInfo,
    /// `local_work_size` as the application passed it (`None` = NULL).
    pub local_size_given: Option<[u64; 3]>,
    /// `cl_mem_flags` of each argument (0 for non-buffers), for capture.
    pub mem_flags: &'a [u64],
}

/// A launch's order against earlier ones, from the queue/event graph (`order`).
struct CommandOrder {
    point: Point,
    /// What completed before the launch started.
    clock: Arc<Clock>,
    /// [`order::settled_horizon`], asked once: a launch start asks about every launch of
    /// the checker's window (up to 256), which took the host lock each.
    horizon: OnceLock<Arc<Clock>>,
}

impl CommandOrder {
    fn new(point: Point, clock: Arc<Clock>) -> CommandOrder {
        CommandOrder {
            point,
            clock,
            horizon: OnceLock::new(),
        }
    }
}

// Both questions are transitive, as `LaunchOrder` requires: a point gets into a clock only
// by joining the done clock of its command (`executor::start_clock`), which holds that
// command's start clock, so whatever that command followed this one follows too; the host
// horizon is a join of done clocks likewise.
impl LaunchOrder for CommandOrder {
    fn key(&self) -> u64 {
        self.point.key()
    }
    fn follows(&self, key: u64) -> bool {
        self.clock.covers(Point::from_key(key))
    }
    fn settled(&self, key: u64) -> bool {
        self.horizon
            .get_or_init(order::settled_horizon)
            .covers(Point::from_key(key))
    }
}

/// Runs `launch` of `program` to completion under the schedule the environment selects,
/// with the configured checkers attached and the launch recorded when capture is on.
pub fn run(
    program: &Program,
    launch: &Launch,
    how: &Enqueued<'_>,
) -> Result<LaunchStats, ExecError> {
    let schedule = settings().schedule.clone();
    tracing::debug!(
        "launch {} global {:?} local {:?} offset {:?}",
        launch.kernel,
        launch.global_size,
        launch.local_size,
        launch.global_offset
    );
    let record = recorder().and_then(|r| {
        let input = ProgramInput {
            source: how.program.source,
            spirv: how.program.spirv,
            build_options: how.program.options,
        };
        match r.record_launch(
            input,
            how.kernel,
            launch,
            how.local_size_given,
            how.mem_flags,
        ) {
            Ok(id) => id.map(|id| (r, id)),
            Err(e) => {
                eprintln!(
                    "ShadowCL: could not record launch of {}: {e}",
                    launch.kernel
                );
                None
            }
        }
    });
    let id = next_launch_id();
    let progress = progress::watch(device(&schedule), findings_so_far);
    let result = match session() {
        Some(s) if s.checks_kernel(&launch.kernel) => {
            // Launches always run as queue commands; `Sequential` only guards direct calls.
            let queued = order::current().map(|(point, clock)| CommandOrder::new(point, clock));
            let order: &dyn LaunchOrder = match &queued {
                Some(o) => o,
                None => &Sequential,
            };
            let r = s.run_launch(device(&schedule), program, launch, &schedule, id, order);
            report(s);
            r
        }
        Some(s) => {
            // Not selected by SHADOWCL_KERNELS: the checks-off path, at its speed.
            let r = device(&schedule).run(program, launch, &schedule, &NoObserver);
            s.unchecked_launch(launch);
            r
        }
        None => device(&schedule).run(program, launch, &schedule, &NoObserver),
    };
    if let Some(p) = progress {
        // The line goes with the launch (unless another queue's launch still runs).
        p.tick(std::time::Instant::now());
    }
    if let Some((r, rec)) = record {
        if let Err(e) = r.record_launch_outputs(rec, launch) {
            eprintln!(
                "ShadowCL: could not record outputs of {}: {e}",
                launch.kernel
            );
        }
    }
    result
}

/// Prints new findings to stderr and rewrites the report files when a finding is new or a
/// while has passed (docs/design.md, "Contracts": written after launches and at exit).
fn report(s: &Session) {
    let text = s.take_new_text();
    if !text.is_empty() {
        match progress::watch(device(&settings().schedule), findings_so_far) {
            Some(p) => p.eprint(&text),
            None => eprint!("{text}"),
        }
    }
    if let Err(e) = s.write_files_throttled() {
        eprintln!("ShadowCL: could not write the report: {e}");
    }
}
