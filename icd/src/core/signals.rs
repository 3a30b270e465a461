//! Reports survive the end of the process: SIGINT, SIGTERM and SIGHUP, which end it without
//! running `atexit`, first have the report files written, marked incomplete, with what the
//! launches still running had found.
//!
//! A signal the process ignores (`nohup`) stays ignored. Otherwise the handler only writes
//! the signal's number to a pipe (write(2) is async-signal-safe); a thread waiting on the
//! pipe writes the report, puts back the handler that was there before (the default, or
//! one a library or the application installed: LLVM's, in processes that load it) and
//! raises the signal again, so the process goes on as it would have without ShadowCL. A
//! second signal while the report is written goes to that handler at once.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::OnceLock;

/// The pipe's writing end, for the handler.
static PIPE: AtomicI32 = AtomicI32::new(-1);
/// A signal came already.
static FIRED: AtomicBool = AtomicBool::new(false);
/// The process that took the signals: a child forked from it (Python's multiprocessing)
/// has neither the watcher thread nor the session's launches, and must not wake its
/// parent's watcher through the inherited pipe.
static OWNER: AtomicI32 = AtomicI32::new(0);
/// The actions there were before, by [`SIGNALS`]' order.
static PREVIOUS: [OnceLock<libc::sigaction>; 3] =
    [OnceLock::new(), OnceLock::new(), OnceLock::new()];

const SIGNALS: [(libc::c_int, &str); 3] = [
    (libc::SIGINT, "SIGINT"),
    (libc::SIGTERM, "SIGTERM"),
    (libc::SIGHUP, "SIGHUP"),
];

extern "C" fn on_signal(signal: libc::c_int) {
    // SAFETY: getpid(2) is async-signal-safe.
    if unsafe { libc::getpid() } != OWNER.load(Ordering::Acquire) {
        hand_back(signal);
        return;
    }
    if FIRED.swap(true, Ordering::AcqRel) {
        hand_back(signal);
        return;
    }
    let byte = signal as u8;
    // SAFETY: write(2) is async-signal-safe; the byte lives in this frame.
    unsafe { libc::write(PIPE.load(Ordering::Acquire), (&byte as *const u8).cast(), 1) };
}

/// Takes SIGINT, SIGTERM and SIGHUP where their disposition is the default: `flush(name)`
/// runs on a thread of its own when one comes, then the signal ends the process.
pub(crate) fn write_reports_on(flush: fn(&str)) {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills the array of two descriptors it is given.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        tracing::warn!("no pipe for the signal handler: a signal ends the run without a report");
        return;
    }
    PIPE.store(fds[1], Ordering::Release);
    // SAFETY: getpid(2) has no preconditions.
    OWNER.store(unsafe { libc::getpid() }, Ordering::Release);
    let reader = fds[0];
    let watcher = std::thread::Builder::new()
        .name("shadowcl-signals".into())
        .spawn(move || watch(reader, flush));
    if watcher.is_err() {
        return;
    }
    for (i, (signal, name)) in SIGNALS.into_iter().enumerate() {
        // SAFETY: an all-zero sigaction is a valid value to read the current action into;
        // with a null new action, sigaction only reads.
        let mut current: libc::sigaction = unsafe { std::mem::zeroed() };
        let read = unsafe { libc::sigaction(signal, std::ptr::null(), &mut current) };
        if read != 0 || current.sa_sigaction == libc::SIG_IGN || PREVIOUS[i].set(current).is_err() {
            continue;
        }
        // SAFETY: as above; the handler is an `extern "C" fn(c_int)` that lives as long as
        // the process, and the mask is emptied before use.
        let taken = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut())
        };
        if taken != 0 {
            tracing::warn!("cannot take {name}: it ends the run without a report");
        }
    }
}

/// The watcher thread: waits for a signal's byte, then writes the report and ends the
/// process with that signal.
fn watch(reader: libc::c_int, flush: fn(&str)) {
    let mut byte = 0u8;
    loop {
        // SAFETY: reads at most one byte into a local.
        let n = unsafe { libc::read(reader, (&mut byte as *mut u8).cast(), 1) };
        if n == 1 {
            break;
        }
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        return;
    }
    let signal = libc::c_int::from(byte);
    let name = SIGNALS
        .iter()
        .find(|(s, _)| *s == signal)
        .map_or("a signal", |(_, n)| n);
    let _ = std::panic::catch_unwind(|| flush(name));
    hand_back(signal);
}

/// Puts back the action `signal` had before ShadowCL took it and raises it again (what
/// it does then, that action decides). Async-signal-safe: sigaction(2) and raise(3) are.
fn hand_back(signal: libc::c_int) {
    let Some(i) = SIGNALS.iter().position(|(s, _)| *s == signal) else {
        return;
    };
    // SAFETY: the saved action is one sigaction returned; putting it back and raising the
    // signal is what the process would have had without ShadowCL.
    unsafe {
        match PREVIOUS[i].get() {
            Some(previous) => libc::sigaction(signal, previous, std::ptr::null_mut()),
            None => {
                libc::signal(signal, libc::SIG_DFL);
                0
            }
        };
        libc::raise(signal);
    }
}
