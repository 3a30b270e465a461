//! Happens-before between commands, for the race checker: which earlier commands (kernel
//! launches, host transfers) completed before a command started, derived from queues and
//! events, never from timing.
//!
//! Every command gets a [`Point`] (its queue and position there). A [`Clock`] is a set of
//! points: per queue a prefix (positions `1..=n`) plus single points (commands of out-of-order
//! queues reached through events). When a command starts, its clock joins
//! - the clock of the previous command, on an in-order queue;
//! - the clocks of its wait list, and of the last barrier on an out-of-order queue;
//! - everything that ran on its queue before it, for out-of-order barriers and markers;
//! - the host's clock when it was enqueued: what the application had waited for (`clFinish`,
//!   `clWaitForEvents`, blocking commands, a polled `CL_COMPLETE`). Host waits count for every
//!   thread: a command enqueued after any wait returned is taken to follow what was waited for.
//!
//! The command's own point is then added and the result is stored in its event, where
//! successors find it. A launch's records may be forgotten once it is *settled*: in the host's
//! clock as of the oldest command still waiting to start or running.

use parking_lot::Mutex;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// A command's place: its queue and position there (from 1), packed as `queue << 40 | pos`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Point(u64);

const POS_BITS: u32 = 40;

impl Point {
    fn new(queue: u32, pos: u64) -> Point {
        Point((queue as u64) << POS_BITS | (pos & ((1 << POS_BITS) - 1)))
    }
    fn queue(self) -> u32 {
        (self.0 >> POS_BITS) as u32
    }
    fn pos(self) -> u64 {
        self.0 & ((1 << POS_BITS) - 1)
    }
    pub fn key(self) -> u64 {
        self.0
    }
    pub fn from_key(key: u64) -> Point {
        Point(key)
    }
}

/// A set of commands known to have completed: per-queue prefixes plus single points.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// (queue, n): positions `1..=n` of the queue; sorted by queue.
    prefix: Vec<(u32, u64)>,
    /// Points not covered by `prefix`; sorted.
    points: Vec<Point>,
}

impl Clock {
    pub fn covers(&self, p: Point) -> bool {
        self.prefix_of(p.queue()) >= p.pos() || self.points.binary_search(&p).is_ok()
    }

    fn prefix_of(&self, queue: u32) -> u64 {
        match self.prefix.binary_search_by_key(&queue, |e| e.0) {
            Ok(i) => self.prefix[i].1,
            Err(_) => 0,
        }
    }

    /// Adds `p` and every earlier position of its queue.
    pub fn add_prefix(&mut self, p: Point) {
        match self.prefix.binary_search_by_key(&p.queue(), |e| e.0) {
            Ok(i) => self.prefix[i].1 = self.prefix[i].1.max(p.pos()),
            Err(i) => self.prefix.insert(i, (p.queue(), p.pos())),
        }
        self.prune();
    }

    /// Adds `p` alone.
    pub fn add_point(&mut self, p: Point) {
        if !self.covers(p) {
            if let Err(i) = self.points.binary_search(&p) {
                self.points.insert(i, p);
                if p.pos() == self.prefix_of(p.queue()) + 1 {
                    self.prune();
                }
            }
        }
    }

    pub fn join(&mut self, other: &Clock) {
        for &(q, n) in &other.prefix {
            self.add_prefix(Point::new(q, n));
        }
        for &p in &other.points {
            self.add_point(p);
        }
    }

    /// Keeps the clock small: points a prefix covers go, and points that continue a prefix
    /// extend it (an out-of-order queue's commands, completing in order, end up as one
    /// prefix instead of a list that grows with every command).
    fn prune(&mut self) {
        let mut i = 0;
        while i < self.points.len() {
            let p = self.points[i];
            let n = self.prefix_of(p.queue());
            if p.pos() <= n {
                self.points.remove(i);
            } else if p.pos() == n + 1 {
                self.points.remove(i);
                match self.prefix.binary_search_by_key(&p.queue(), |e| e.0) {
                    Ok(k) => self.prefix[k].1 = p.pos(),
                    Err(k) => self.prefix.insert(k, (p.queue(), p.pos())),
                }
                // Points are sorted by (queue, pos): the next one may continue it too.
            } else {
                i += 1;
            }
        }
    }
}

/// What the host has waited for, and the host clocks of commands not finished yet.
struct Host {
    clock: Arc<Clock>,
    pending: BTreeMap<u64, Arc<Clock>>,
    next: u64,
}

fn host() -> &'static Mutex<Host> {
    static HOST: OnceLock<Mutex<Host>> = OnceLock::new();
    HOST.get_or_init(|| {
        Mutex::new(Host {
            clock: Arc::new(Clock::default()),
            pending: BTreeMap::new(),
            next: 0,
        })
    })
}

/// The host's clock now (taken when a command is enqueued).
pub fn host_clock() -> Arc<Clock> {
    host().lock().clock.clone()
}

/// The application saw commands complete: everything it enqueues from now on follows them.
pub fn host_saw(done: &Clock) {
    let mut h = host().lock();
    let mut c = (*h.clock).clone();
    c.join(done);
    if c != *h.clock {
        h.clock = Arc::new(c);
    }
}

/// A command enqueued and not finished yet (kernel launches and host commands both join the
/// race checker's window when they run); its host clock bounds what may be forgotten.
pub struct PendingCommand(u64);

impl PendingCommand {
    /// Registers a command being enqueued now.
    pub fn register() -> PendingCommand {
        let mut h = host().lock();
        let id = h.next;
        h.next += 1;
        let clock = h.clock.clone();
        h.pending.insert(id, clock);
        PendingCommand(id)
    }
}

impl Drop for PendingCommand {
    fn drop(&mut self) {
        host().lock().pending.remove(&self.0);
    }
}

/// What happens before every command that may still start: a point it covers is settled.
pub fn settled_horizon() -> Arc<Clock> {
    host().lock().horizon()
}

impl Host {
    /// The host clock as of the oldest command not finished (host clocks only grow, so that
    /// one is the smallest).
    fn horizon(&self) -> Arc<Clock> {
        self.pending.values().next().unwrap_or(&self.clock).clone()
    }

    #[cfg(test)]
    fn settled(&self, p: Point) -> bool {
        self.horizon().covers(p)
    }
}

/// A queue's side of the ordering, shared by the queue object and its executor thread.
pub struct QueueOrder {
    id: u32,
    next_pos: AtomicU64,
    /// Join of the done clocks of every command of the queue that completed.
    done: Mutex<Clock>,
}

/// Whether commands may run unordered with each other: set for good once the process has an
/// out-of-order queue or a second queue. With one in-order queue every command follows the
/// previous one, and host commands need no race check.
static MAY_OVERLAP: AtomicBool = AtomicBool::new(false);

/// Whether two commands of this process may ever have been unordered ([`MAY_OVERLAP`]).
pub fn may_overlap() -> bool {
    MAY_OVERLAP.load(Ordering::Relaxed)
}

impl QueueOrder {
    pub fn new(out_of_order: bool) -> Arc<QueueOrder> {
        static NEXT: AtomicU32 = AtomicU32::new(1);
        if out_of_order || NEXT.load(Ordering::Relaxed) > 1 {
            MAY_OVERLAP.store(true, Ordering::Relaxed);
        }
        Arc::new(QueueOrder {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            next_pos: AtomicU64::new(1),
            done: Mutex::new(Clock::default()),
        })
    }

    /// The next position; called in the order commands take effect on the queue (at enqueue
    /// for out-of-order queues, at start on the executor for in-order ones).
    pub fn next_point(&self) -> Point {
        Point::new(self.id, self.next_pos.fetch_add(1, Ordering::Relaxed))
    }

    /// Everything that completed on this queue.
    pub fn done(&self) -> Clock {
        self.done.lock().clone()
    }

    pub fn completed(&self, clock: &Clock) {
        self.done.lock().join(clock);
    }
}

/// How a command's clock is made when it starts (besides its wait list).
pub struct Start {
    /// The host clock at enqueue.
    pub host: Arc<Clock>,
    /// Out-of-order queues: the position taken at enqueue, and whether the command follows
    /// everything before it on the queue (barriers, markers without a wait list).
    pub point: Option<(Point, bool)>,
}

/// The command that runs on this thread now: its point and its clock (without itself).
type Current = Option<(Point, Arc<Clock>)>;

thread_local! {
    static CURRENT: RefCell<Current> = const { RefCell::new(None) };
}

/// Runs `f` as the current command of this thread (the launch code asks [`current`]).
pub fn with_current<R>(point: Point, clock: Arc<Clock>, f: impl FnOnce() -> R) -> R {
    let prev = CURRENT.with(|c| c.replace(Some((point, clock))));
    let r = f();
    CURRENT.with(|c| *c.borrow_mut() = prev);
    r
}

/// The point and start clock of the command running on this thread (`None` off executors).
pub fn current() -> Current {
    CURRENT.with(|c| c.borrow().clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_cover_earlier_positions_and_absorb_points() {
        let mut c = Clock::default();
        c.add_point(Point::new(2, 5));
        c.add_point(Point::new(2, 9));
        assert!(c.covers(Point::new(2, 5)));
        assert!(!c.covers(Point::new(2, 6)));
        c.add_prefix(Point::new(2, 7));
        assert!(c.covers(Point::new(2, 6)));
        assert_eq!(c.points, vec![Point::new(2, 9)]);
        assert!(!c.covers(Point::new(1, 1)));
        let mut d = Clock::default();
        d.add_prefix(Point::new(1, 3));
        d.join(&c);
        assert!(d.covers(Point::new(1, 3)) && d.covers(Point::new(2, 9)));
        assert!(!d.covers(Point::new(1, 4)));
    }

    #[test]
    fn settled_waits_for_the_oldest_pending_launch() {
        let p = Point::new(7, 1);
        let mut seen = Clock::default();
        seen.add_prefix(p);
        let mut h = Host {
            clock: Arc::new(Clock::default()),
            pending: BTreeMap::new(),
            next: 0,
        };
        // A launch enqueued before the host saw `p` complete may overlap it.
        h.pending.insert(0, h.clock.clone());
        h.clock = Arc::new(seen.clone());
        assert!(!h.settled(p));
        h.pending.insert(1, h.clock.clone());
        h.pending.remove(&0);
        assert!(h.settled(p));
        h.pending.clear();
        assert!(h.settled(p));
        assert!(!h.settled(Point::new(7, 2)));
    }

    /// Happens-before clocks against a model that lists every covered point:
    /// prefixes, points and joins cover exactly the model's points, and stay canonical.
    mod properties {
        use super::*;
        use proptest::prelude::*;
        use std::collections::BTreeSet;

        #[derive(Clone, Debug)]
        enum Step {
            Prefix(u32, u64),
            Point(u32, u64),
        }

        fn steps() -> impl Strategy<Value = Vec<Step>> {
            proptest::collection::vec(
                (any::<bool>(), 0u32..3, 1u64..12).prop_map(|(prefix, q, n)| {
                    if prefix {
                        Step::Prefix(q, n)
                    } else {
                        Step::Point(q, n)
                    }
                }),
                0..16,
            )
        }

        fn build(steps: &[Step]) -> (Clock, BTreeSet<(u32, u64)>) {
            let (mut c, mut m) = (Clock::default(), BTreeSet::new());
            for s in steps {
                match *s {
                    Step::Prefix(q, n) => {
                        c.add_prefix(Point::new(q, n));
                        m.extend((1..=n).map(|k| (q, k)));
                    }
                    Step::Point(q, n) => {
                        c.add_point(Point::new(q, n));
                        m.insert((q, n));
                    }
                }
            }
            (c, m)
        }

        fn agrees(c: &Clock, m: &BTreeSet<(u32, u64)>) -> bool {
            (0..3).all(|q| (1..14).all(|n| c.covers(Point::new(q, n)) == m.contains(&(q, n))))
        }

        /// No point is covered by, or continues, its queue's prefix.
        fn canonical(c: &Clock) -> bool {
            c.points
                .iter()
                .all(|p| p.pos() > c.prefix_of(p.queue()) + 1)
        }

        proptest! {
            #[test]
            fn clocks_cover_what_was_added_and_joins_cover_the_union(a in steps(), b in steps()) {
                let (mut ca, ma) = build(&a);
                let (cb, mb) = build(&b);
                prop_assert!(agrees(&ca, &ma) && canonical(&ca));
                ca.join(&cb);
                let union: BTreeSet<_> = ma.union(&mb).copied().collect();
                prop_assert!(agrees(&ca, &union) && canonical(&ca));
                // A set has one form: the same points added in another order give an equal clock.
                let mut cb2 = cb.clone();
                cb2.join(&build(&a).0);
                prop_assert_eq!(ca, cb2);
            }
        }
    }
}
