//! Command queues. Each queue has one executor thread ([`crate::core::executor`]) fed
//! through a channel; commands run in submission order (which is a valid schedule for
//! out-of-order queues too), each after the events of its wait list, across queues as well.

use crate::consts::*;
use crate::core::context::Context;
use crate::core::event::{set_status, Event};
use crate::core::executor;
use crate::core::object::{self, ClObject, Ref};
use crate::core::order::{self, QueueOrder};
use crate::types::*;
use crossbeam_channel::{unbounded, Sender};
use parking_lot::Mutex;
use std::sync::Arc;

/// The work of a command; runs on the queue's executor thread.
pub type Work = Box<dyn FnOnce() -> Result<(), cl_int> + Send>;

pub struct Command {
    pub(super) event: Ref<Event>,
    pub(super) waits: Vec<Ref<Event>>,
    pub(super) work: Work,
    pub(super) start: order::Start,
    /// Events the command is ordered after without waiting for them (an out-of-order queue's
    /// last barrier, already complete).
    pub(super) after: Vec<Ref<Event>>,
    /// Until it finished (after joining the race checker's window), the command holds back
    /// forgetting what it may overlap: released earlier, a host wait between enqueue and
    /// its start would settle (and forget) commands it was enqueued alongside, and their
    /// races with it would go unseen.
    pub(super) pending: order::PendingCommand,
}

pub struct Queue {
    pub context: Ref<Context>,
    pub properties: cl_command_queue_properties,
    pub properties_array: Vec<cl_queue_properties>,
    tx: Sender<Command>,
    order: Arc<QueueOrder>,
    last: Mutex<Option<Ref<Event>>>,
    /// Out-of-order queues: commands not known to be complete, and the last barrier.
    outstanding: Mutex<Vec<Ref<Event>>>,
    barrier: Mutex<Option<Ref<Event>>>,
}

impl Queue {
    /// A new queue (properties checked) and its executor thread.
    pub fn new(
        context: Ref<Context>,
        properties: cl_command_queue_properties,
        properties_array: Vec<cl_queue_properties>,
    ) -> Result<Ref<Queue>, cl_int> {
        let (tx, rx) = unbounded();
        let order = QueueOrder::new(properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0);
        let executor_order = order.clone();
        std::thread::Builder::new()
            .name("shadowcl-queue".into())
            .spawn(move || {
                executor::executor(
                    rx,
                    executor_order,
                    properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0,
                )
            })
            .map_err(|_| CL_OUT_OF_HOST_MEMORY)?;
        Ok(object::create(Queue {
            context,
            properties,
            properties_array,
            tx,
            order,
            last: Mutex::new(None),
            outstanding: Mutex::new(Vec::new()),
            barrier: Mutex::new(None),
        }))
    }

    fn out_of_order(&self) -> bool {
        self.properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0
    }
}

impl ClObject for Queue {
    const TAG: u32 = 0x5C1_0004;
    const INVALID: i32 = CL_INVALID_COMMAND_QUEUE;
    type Handle = cl_command_queue;
}

pub fn get_queue(q: cl_command_queue) -> Result<Ref<Queue>, cl_int> {
    object::get::<Queue, _>(q)
}

/// Submits a command and returns its event. `blocking` waits for completion and reports a
/// failed wait list as `CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST`.
pub fn submit(
    q: &Ref<Queue>,
    command_type: cl_command_type,
    waits: Vec<Ref<Event>>,
    blocking: bool,
    work: Work,
) -> Result<Ref<Event>, cl_int> {
    let mut waits = waits;
    let done = |e: &Ref<Event>| e.status() <= CL_COMPLETE as cl_int;
    let profiling = q.properties & CL_QUEUE_PROFILING_ENABLE != 0;
    let qh: cl_command_queue = object::handle(q);
    let ev = Event::new(
        q.context.clone(),
        qh as usize,
        command_type,
        profiling,
        CL_QUEUED as cl_int,
    );
    let pending = order::PendingCommand::register();
    let mut start = order::Start {
        host: order::host_clock(),
        point: None,
    };
    let mut after = Vec::new();
    if q.out_of_order() {
        let mut outstanding = q.outstanding.lock();
        outstanding.retain(|e| !done(e));
        let mut barrier = q.barrier.lock();
        if let Some(b) = barrier.as_ref() {
            if done(b) {
                after.push(b.clone());
            } else {
                waits.push(b.clone());
            }
        }
        let sync = command_type == CL_COMMAND_MARKER || command_type == CL_COMMAND_BARRIER;
        let all = sync && waits.is_empty();
        if all {
            waits.extend(outstanding.iter().cloned());
        }
        start.point = Some((q.order.next_point(), all));
        if command_type == CL_COMMAND_BARRIER {
            *barrier = Some(ev.clone());
        }
        outstanding.push(ev.clone());
    }
    set_status(&ev, CL_SUBMITTED as cl_int);
    *q.last.lock() = Some(ev.clone());
    q.tx.send(Command {
        event: ev.clone(),
        waits,
        work,
        start,
        after,
        pending,
    })
    .map_err(|_| CL_OUT_OF_RESOURCES)?;
    if blocking {
        let s = ev.host_wait();
        if s < 0 {
            // A failed call hands out no event.
            return Err(if s == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST {
                s
            } else {
                CL_OUT_OF_RESOURCES
            });
        }
    }
    Ok(ev)
}

/// Waits for every command submitted to `q` so far.
pub fn finish(q: &Queue) {
    let last = q.last.lock().clone();
    let outstanding = q.outstanding.lock().clone();
    for e in outstanding.iter().chain(last.iter()) {
        e.wait();
    }
    order::host_saw(&q.order.done());
}
