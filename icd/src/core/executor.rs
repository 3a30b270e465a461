//! The executor thread of a queue: runs each command when its turn has come and its wait list
//! is complete, and gives its event the clock of what completed before it
//! ([`crate::core::order`]).

use crate::consts::*;
use crate::core::event::set_status;
use crate::core::launch;
use crate::core::order::{self, Clock, Point, QueueOrder};
use crate::core::queue::Command;
use crate::types::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// The point of a starting command and its clock (what completed before it), from its wait
/// list, its ordering and, on an in-order queue, the previous command's clock `prev`.
fn start_clock(cmd: &Command, q: &QueueOrder, prev: Option<&Clock>) -> (Point, Clock, bool) {
    let mut c = (*cmd.start.host).clone();
    for e in cmd.waits.iter().chain(&cmd.after) {
        if let Some(d) = e.order.get() {
            c.join(d);
        }
    }
    match cmd.start.point {
        Some((p, all)) => {
            if all {
                c.join(&q.done());
            }
            (p, c, all)
        }
        None => {
            if let Some(prev) = prev {
                c.join(prev);
            }
            (q.next_point(), c, true)
        }
    }
}

/// Runs one command whose turn has come; returns its done clock.
fn run_command(cmd: Command, q: &QueueOrder, prev: Option<&Clock>) -> Arc<Clock> {
    let failed = cmd.waits.iter().any(|w| w.wait() < 0);
    let (point, start, follows_queue) = start_clock(&cmd, q, prev);
    drop(cmd.waits);
    drop(cmd.after);
    let mut done = start.clone();
    if follows_queue {
        done.add_prefix(point);
    } else {
        done.add_point(point);
    }
    let done = Arc::new(done);
    let finish = |status: cl_int| {
        q.completed(&done);
        let _ = cmd.event.order.set(done.clone());
        set_status(&cmd.event, status);
    };
    if failed {
        finish(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        return done.clone();
    }
    set_status(&cmd.event, CL_RUNNING as cl_int);
    // Released when the command has finished (`PendingCommand`).
    let _pending = cmd.pending;
    let (work, command_type) = (cmd.work, cmd.event.command_type);
    let status = match order::with_current(point, Arc::new(start), || {
        catch_unwind(AssertUnwindSafe(|| {
            launch::host_command(command_type, work)
        }))
    }) {
        Ok(Ok(())) => CL_COMPLETE as cl_int,
        Ok(Err(e)) => e,
        Err(_) => {
            tracing::error!("internal error while running a command");
            CL_OUT_OF_RESOURCES
        }
    };
    finish(status);
    done
}

fn ready(cmd: &Command) -> bool {
    cmd.waits
        .iter()
        .all(|w| w.status() <= CL_COMPLETE as cl_int)
}

/// A command an out-of-order queue set aside, and which event of its wait list will wake the
/// executor when it ends.
struct SetAside {
    cmd: Command,
    armed: Option<usize>,
}

/// The executor thread of a queue. In-order queues run commands strictly in submission
/// order. Out-of-order queues set aside commands whose wait list is not complete yet and run
/// later ones meanwhile (markers and barriers carry their implicit dependencies as waits).
/// Set-aside commands sleep until an event of their wait list ends and signals the executor.
pub fn executor(rx: crossbeam_channel::Receiver<Command>, q: Arc<QueueOrder>, out_of_order: bool) {
    let (wake, woken) = crossbeam_channel::unbounded::<()>();
    let mut pending: Vec<SetAside> = Vec::new();
    // In-order queues: the previous command's done clock.
    let mut prev: Option<Arc<Clock>> = None;
    let mut open = true;
    loop {
        while let Some(i) = pending.iter().position(|p| ready(&p.cmd)) {
            run_command(pending.remove(i).cmd, &q, None);
        }
        let mut runnable = false;
        for p in &mut pending {
            let armed = p
                .armed
                .is_some_and(|i| p.cmd.waits[i].status() > CL_COMPLETE as cl_int);
            if !armed {
                p.armed = p.cmd.waits.iter().position(|w| w.wake_when_done(&wake));
                // Every event ended meanwhile: the scan above runs it.
                runnable |= p.armed.is_none();
            }
        }
        if runnable {
            continue;
        }
        let next = if !open {
            // The queue is gone; set-aside commands still run when their events end.
            if pending.is_empty() {
                return;
            }
            let _ = woken.recv();
            continue;
        } else if pending.is_empty() {
            match rx.recv() {
                Ok(c) => c,
                Err(_) => return,
            }
        } else {
            crossbeam_channel::select! {
                recv(rx) -> c => match c {
                    Ok(c) => c,
                    Err(_) => {
                        open = false;
                        continue;
                    }
                },
                recv(woken) -> _ => continue,
            }
        };
        if out_of_order && !ready(&next) {
            pending.push(SetAside {
                cmd: next,
                armed: None,
            });
        } else if out_of_order {
            run_command(next, &q, None);
        } else {
            prev = Some(run_command(next, &q, prev.as_deref()));
        }
    }
}
