//! The progress line of long launches. When stderr is a terminal and the device has been busy
//! for [`DELAY`], one line (drawn by `indicatif`) shows the work-groups done of those started
//! and the findings so far; it is cleared as soon as the device is idle again. A watcher
//! thread, started at the first launch and only on a terminal, polls the device's group
//! counters (`Device::groups`): work-groups only add to an atomic counter, and nothing is
//! ever drawn into a pipe or a file, so CI logs stay clean.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use parking_lot::Mutex;
use shadowcl_interpreter::{Device, GroupCounts};
use shadowcl_shadow::progress_message;
use std::io::IsTerminal;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// How long the device must be busy before the line appears: short launches print nothing.
const DELAY: Duration = Duration::from_secs(2);
/// How often the watcher looks while launches run, and while the device is idle.
const POLL_BUSY: Duration = Duration::from_millis(100);
const POLL_IDLE: Duration = Duration::from_millis(500);
/// The line: `ShadowCL =====>     500/1000 work-groups, 3 findings so far [00:00:04]`.
const TEMPLATE: &str = "ShadowCL {bar:30} {msg} [{elapsed}]";

/// The line and what it is drawn from.
pub(crate) struct Progress {
    counts: Box<dyn Fn() -> GroupCounts + Send + Sync>,
    findings: Box<dyn Fn() -> usize + Send + Sync>,
    target: fn() -> ProgressDrawTarget,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The line while it is shown.
    bar: Option<ProgressBar>,
    /// Since when the device has been busy, and the groups started before that (which the
    /// line leaves out).
    busy: Option<(Instant, u64)>,
    /// Groups started when the device was last seen idle.
    idle_started: u64,
}

impl Progress {
    pub(crate) fn new(
        counts: impl Fn() -> GroupCounts + Send + Sync + 'static,
        findings: impl Fn() -> usize + Send + Sync + 'static,
        target: fn() -> ProgressDrawTarget,
    ) -> Progress {
        Progress {
            counts: Box::new(counts),
            findings: Box::new(findings),
            target,
            state: Mutex::new(State::default()),
        }
    }

    /// Looks at the counters at `now`: shows or updates the line once the device has been
    /// busy for [`DELAY`], clears it when the device is idle. Returns whether it is busy.
    pub(crate) fn tick(&self, now: Instant) -> bool {
        let c = (self.counts)();
        let mut st = self.state.lock();
        if c.done >= c.started {
            st.idle_started = c.started;
            st.busy = None;
            if let Some(bar) = st.bar.take() {
                bar.finish_and_clear();
            }
            return false;
        }
        let base = st.idle_started;
        let (since, base) = *st.busy.get_or_insert((now, base));
        if now.saturating_duration_since(since) < DELAY {
            return true;
        }
        let (done, total) = (c.done - base.min(c.done), c.started - base);
        let message = progress_message(done, total, "work-groups", (self.findings)());
        let bar = st.bar.get_or_insert_with(|| {
            // The clock counts from when the device became busy, not from when the line came.
            let bar = ProgressBar::with_draw_target(Some(total), (self.target)())
                .with_elapsed(now.saturating_duration_since(since));
            bar.set_style(style());
            bar
        });
        bar.set_length(total);
        bar.set_position(done);
        bar.set_message(message);
        true
    }

    /// Writes `text` to stderr, with the line (if shown) lifted out of the way meanwhile.
    pub(crate) fn eprint(&self, text: &str) {
        let st = self.state.lock();
        match &st.bar {
            Some(bar) => bar.suspend(|| eprint!("{text}")),
            None => eprint!("{text}"),
        }
    }

    /// Whether the line is on screen (for tests).
    #[cfg(test)]
    fn shown(&self) -> Option<(u64, Option<u64>, String)> {
        let st = self.state.lock();
        st.bar
            .as_ref()
            .map(|b| (b.position(), b.length(), b.message()))
    }
}

fn style() -> ProgressStyle {
    ProgressStyle::with_template(TEMPLATE)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ")
}

/// The process's progress line: `None` when stderr is not a terminal. Made, with its watcher
/// thread, at the first launch.
pub(crate) fn watch(
    device: &'static Device,
    findings: fn() -> usize,
) -> Option<&'static Arc<Progress>> {
    static WATCH: OnceLock<Option<Arc<Progress>>> = OnceLock::new();
    WATCH
        .get_or_init(|| {
            if !std::io::stderr().is_terminal() {
                return None;
            }
            let p = Arc::new(Progress::new(
                move || device.groups(),
                findings,
                ProgressDrawTarget::stderr,
            ));
            let watcher = Arc::clone(&p);
            let started = std::thread::Builder::new()
                .name("shadowcl-progress".into())
                .spawn(move || loop {
                    let busy = watcher.tick(Instant::now());
                    std::thread::sleep(if busy { POLL_BUSY } else { POLL_IDLE });
                });
            // Without its thread the line would never update: then there is none.
            started.ok().map(|_| p)
        })
        .as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    static STARTED: AtomicU64 = AtomicU64::new(0);
    static DONE: AtomicU64 = AtomicU64::new(0);

    fn set(started: u64, done: u64) {
        STARTED.store(started, Ordering::Relaxed);
        DONE.store(done, Ordering::Relaxed);
    }

    /// The line appears only after the device has been busy for the delay, counts the groups
    /// of the launches running since it became busy, and goes when the device is idle.
    #[test]
    fn shown_after_the_delay_relative_to_the_busy_period_and_cleared_when_idle() {
        let p = Progress::new(
            || GroupCounts {
                started: STARTED.load(Ordering::Relaxed),
                done: DONE.load(Ordering::Relaxed),
            },
            || 3,
            ProgressDrawTarget::hidden,
        );
        let t0 = Instant::now();
        set(100, 100); // an earlier launch, finished
        assert!(!p.tick(t0));
        set(1100, 100); // a launch of 1000 groups starts
        assert!(p.tick(t0));
        set(1100, 400);
        assert!(p.tick(t0 + Duration::from_secs(1)));
        assert_eq!(p.shown(), None, "not before the delay");
        set(1100, 600);
        assert!(p.tick(t0 + Duration::from_millis(2100)));
        assert_eq!(
            p.shown(),
            Some((
                500,
                Some(1000),
                "500/1000 work-groups, 3 findings so far".into()
            ))
        );
        set(1100, 1100);
        assert!(!p.tick(t0 + Duration::from_secs(3)));
        assert_eq!(p.shown(), None, "cleared when the launch ends");
        // A short launch after that shows nothing.
        set(1110, 1100);
        assert!(p.tick(t0 + Duration::from_secs(4)));
        set(1110, 1110);
        assert!(!p.tick(t0 + Duration::from_millis(4500)));
        assert_eq!(p.shown(), None);
    }

    #[test]
    fn the_template_parses() {
        assert!(ProgressStyle::with_template(TEMPLATE).is_ok());
    }
}
