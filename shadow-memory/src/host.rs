//! Host commands as the race checker sees them. A buffer or image read, write, copy or fill
//! enqueued on a queue runs as a command among the kernel launches: when the queues and events
//! do not order it with a kernel that touches the same bytes, the two race (OpenCL 3.0 5.11:
//! commands of an out-of-order queue, or of two queues, run in any order and may overlap).
//! A host command is checked as a launch of one work-item whose accesses are the bytes it
//! read and wrote, so the window, the records and the report treat it as they treat kernels.

use crate::session::{LaunchOrder, Session};
use shadowcl_interpreter::{
    Access, AccessKind, AddressSpace, AllocId, ArgBinding, GroupInfo, InstId, LaunchInfo, Observer,
    SourceLoc, WorkItem,
};

/// Bytes a host command read or wrote in one memory object's storage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostAccess {
    /// The parameter of the entry point that named the object (`buffer`, `src_buffer`,
    /// `dst_image`, ...): the report calls the buffer by it.
    pub param: &'static str,
    pub alloc: AllocId,
    /// From the start of the storage (a sub-buffer's offset included).
    pub offset: u64,
    pub len: u64,
    pub write: bool,
}

/// Host commands have no source lines.
fn no_location(_: InstId) -> Option<SourceLoc> {
    None
}

/// An access's bytes are fed to the records in pieces this large (`Access::size` is a `u32`).
const PIECE: u64 = 1 << 30;

impl Session {
    /// Checks host command `id` (`command`: its entry point, `clEnqueueReadBuffer`), ordered
    /// against the launches of the window by `order`, as a one-item launch that made
    /// `accesses`. Reads are copies (they move bytes, undefined ones too, without using them);
    /// writes make bytes defined.
    pub fn host_command(
        &self,
        id: u64,
        command: &str,
        accesses: &[HostAccess],
        order: &dyn LaunchOrder,
    ) {
        let c = self.checks();
        if !c.race_records() {
            // No records to write: the host's writes only make bytes defined.
            for a in accesses.iter().filter(|a| a.write) {
                self.buffer_written_by_host(a.alloc, a.offset, a.len);
            }
            return;
        }
        // Only bytes of buffers the session knows (`buffer_created`), inside them.
        let accesses: Vec<HostAccess> = {
            let shadows = self.shadows.read();
            accesses
                .iter()
                .filter_map(|a| {
                    let end = a
                        .offset
                        .saturating_add(a.len)
                        .min(shadows.get(&a.alloc)?.len());
                    (a.offset < end).then(|| HostAccess {
                        len: end - a.offset,
                        ..a.clone()
                    })
                })
                .collect()
        };
        if accesses.is_empty() {
            return;
        }
        let locations = no_location;
        let mut checker = self.launch(&locations, id, "host command", order);
        checker.host = true;
        // One binding per (allocation, parameter); `param[i]` is access i's.
        let mut args: Vec<ArgBinding> = Vec::new();
        let mut param = Vec::with_capacity(accesses.len());
        for a in &accesses {
            let bound = args
                .iter()
                .position(|b| b.alloc == Some(a.alloc) && *b.name == *a.param);
            param.push(bound.unwrap_or_else(|| {
                args.push(ArgBinding {
                    index: args.len() as u32,
                    name: a.param.into(),
                    space: AddressSpace::Global,
                    alloc: Some(a.alloc),
                    view_offset: 0,
                    view_size: a.offset + a.len,
                    elem_size: 1,
                    never_written: false,
                });
                args.len() - 1
            }));
        }
        let one = [1, 1, 1];
        checker.launch_start(&LaunchInfo {
            kernel: command,
            work_dim: 1,
            global_offset: [0; 3],
            global_size: one,
            local_size: one,
            num_groups: one,
            args: &args,
            local_allocs: &[],
        });
        let mut g = checker.group_start(&GroupInfo {
            group: [0; 3],
            group_linear: 0,
            items: 1,
        });
        let item = WorkItem {
            global: [0; 3],
            local: [0; 3],
            group: [0; 3],
            local_linear: 0,
        };
        for (a, &param) in accesses.iter().zip(&param) {
            // One "instruction" per parameter and direction (what the launch's touched notes
            // key on), not one per row of a rectangle.
            let inst = InstId((param * 2 + a.write as usize) as u32);
            let mut at = a.offset;
            let end = a.offset.saturating_add(a.len);
            while at < end {
                let size = (end - at).min(PIECE);
                checker.check_access::<false>(
                    &mut g,
                    &Access {
                        space: AddressSpace::Global,
                        alloc: a.alloc,
                        offset: at,
                        size: size as u32,
                        kind: if a.write {
                            AccessKind::Write
                        } else {
                            AccessKind::Read
                        },
                        value: &[],
                        previous: &[],
                        item: &item,
                        inst,
                        by_group: false,
                        copy: !a.write,
                        undefined: 0,
                        component: 0,
                    },
                );
                at += size;
            }
        }
        checker.item_end(&mut g, &item);
        checker.group_end(g);
        checker.launch_end();
    }
}
