//! Kernels: their arguments, and turning a kernel and its arguments into a launch.

use crate::consts::*;
use crate::core::image;
use crate::core::launch;
use crate::core::mem::Mem;
use crate::core::object::{self, ClObject, Obj, Ref};
use crate::core::platform::{LOCAL_MEM_SIZE, MAX_WORK_GROUP_SIZE};
use crate::core::program::Program;
use crate::core::queue::{Queue, Work};
use crate::types::*;
use parking_lot::Mutex;
use shadowcl_interpreter::{ArgValue, KernelInfo, Launch, Program as Loaded};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

/// A value given to `clSetKernelArg`.
#[derive(Clone)]
pub enum ArgSet {
    /// A buffer or image, held weakly: `clSetKernelArg` does not retain a memory object (only
    /// enqueued commands keep one alive), so its release still destroys it and runs its
    /// destructor callbacks. A launch upgrades the reference or refuses to start.
    Mem(Option<Weak<Obj<Mem>>>),
    Local(u64),
    Bytes(Vec<u8>),
    /// `sampler_t` bits of a sampler object.
    Sampler(u32),
}

pub struct Kernel {
    pub program: Ref<Program>,
    pub info: KernelInfo,
    pub loaded: Arc<Loaded>,
    pub non_uniform: bool,
    /// `clGetKernelArgInfo` answers CL_KERNEL_ARG_INFO_NOT_AVAILABLE for names and types.
    pub no_arg_info: bool,
    pub args: Mutex<Vec<Option<ArgSet>>>,
    /// The local memory the kernel's own `__local` variables take in the application's
    /// build, where the checked build's passes the device's
    /// ([`crate::core::program::ProgramState::app_local`]).
    app_local: Option<u64>,
}

impl ClObject for Kernel {
    const TAG: u32 = 0x5C1_0007;
    const INVALID: i32 = CL_INVALID_KERNEL;
    type Handle = cl_kernel;
    /// A kernel is "attached" to its program (which then refuses to be rebuilt) while the
    /// application holds it, not while queued commands still do.
    fn app_held(&self, held: bool) {
        if held {
            self.program.kernels_live.fetch_add(1, Ordering::SeqCst);
        } else {
            self.program.kernels_live.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

pub fn get_kernel(k: cl_kernel) -> Result<Ref<Kernel>, cl_int> {
    object::get::<Kernel, _>(k)
}

/// A new kernel object of program `p`, handed to the application.
pub fn make_kernel(
    p: &Ref<Program>,
    info: KernelInfo,
    loaded: Arc<Loaded>,
    (non_uniform, no_arg_info): (bool, bool),
) -> cl_kernel {
    let n = info.args.len();
    let app_local = p.state.lock().app_local.get(&info.name).copied();
    object::into_handle(object::create(Kernel {
        program: p.clone(),
        info,
        loaded,
        non_uniform,
        no_arg_info,
        args: Mutex::new(vec![None; n]),
        app_local,
    }))
}

/// Bytes of the `__local` pointer arguments set so far.
pub fn local_args_size(k: &Kernel) -> u64 {
    k.args
        .lock()
        .iter()
        .map(|a| match a {
            Some(ArgSet::Local(n)) => *n,
            _ => 0,
        })
        .sum()
}

/// The local memory a launch of `k` takes with its arguments as they are now
/// (`CL_KERNEL_LOCAL_MEM_SIZE`, OpenCL 3.0 5.9.4): its own variables as the application's
/// build allocates them (the checked build still runs with what it needs, host memory
/// standing for local memory), and its `__local` arguments.
pub fn local_mem_size(k: &Kernel) -> u64 {
    let own = k.app_local.unwrap_or(k.info.local_mem_size);
    own.min(k.info.local_mem_size)
        .saturating_add(local_args_size(k))
}

/// The largest work-group size this kernel can run with.
pub fn max_wg_size(k: &Kernel) -> usize {
    let r = k.info.reqd_work_group_size;
    if r.iter().any(|&x| x != 0) {
        r.iter().map(|&x| x.max(1) as usize).product()
    } else {
        MAX_WORK_GROUP_SIZE
    }
}

/// The NDRange of a launch after validation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub offset: [u64; 3],
    pub global: [u64; 3],
    pub local: [u64; 3],
}

/// A kernel's arguments as the interpreter takes them, with what capture records of them and
/// the memory objects the launch holds until it completes.
struct BoundArgs {
    args: Vec<ArgValue>,
    /// `cl_mem_flags` of each argument (0 for non-buffers).
    mem_flags: Vec<u64>,
    keep: Vec<Ref<Mem>>,
}

/// One argument once its memory object, if any, is known to be alive.
enum Bound {
    Null,
    Mem(Ref<Mem>),
    Value(ArgValue),
}

/// The kernel's arguments as they are now, for a launch on `q`.
fn bind_args(q: &Ref<Queue>, k: &Ref<Kernel>) -> Result<BoundArgs, cl_int> {
    let set = k.args.lock().clone();
    let mut args = Vec::with_capacity(set.len());
    let mut mem_flags = Vec::with_capacity(set.len());
    let mut keep = Vec::new();
    for (index, a) in set.into_iter().enumerate() {
        let a = a.ok_or(CL_INVALID_KERNEL_ARGS)?;
        let arg_name = || k.info.args.get(index).map_or("?", |a| &*a.name);
        let a = match a {
            ArgSet::Mem(Some(weak)) => {
                let Some(m) = weak.upgrade() else {
                    // The application released this memory object after clSetKernelArg and
                    // it is gone: report the bug and refuse the launch.
                    launch::use_after_release(&k.info.name, arg_name());
                    return Err(CL_INVALID_KERNEL_ARGS);
                };
                if object::ref_count(&m) == 0 {
                    // Released by the application but still held by an earlier command:
                    // the launch runs safely, the bug is reported, not turned into a crash.
                    launch::use_after_release(&k.info.name, arg_name());
                }
                Bound::Mem(m)
            }
            ArgSet::Mem(None) => Bound::Null,
            ArgSet::Local(n) => Bound::Value(ArgValue::Local(n)),
            ArgSet::Bytes(b) => Bound::Value(ArgValue::Bytes(b)),
            ArgSet::Sampler(bits) => Bound::Value(ArgValue::Sampler(bits)),
        };
        mem_flags.push(match &a {
            Bound::Mem(m) => m.flags,
            _ => 0,
        });
        args.push(match a {
            Bound::Null => ArgValue::Null,
            Bound::Mem(m) => {
                if !Arc::ptr_eq(&m.context, &q.context) {
                    return Err(CL_INVALID_CONTEXT);
                }
                let v = image::launch_value(&m).unwrap_or_else(|| ArgValue::Buffer {
                    buffer: m.storage.clone(),
                    offset: m.offset as u64,
                    size: m.size as u64,
                });
                keep.push(m);
                v
            }
            Bound::Value(v) => v,
        });
    }
    Ok(BoundArgs {
        args,
        mem_flags,
        keep,
    })
}

/// The work of a launch of `k` on `q` with its arguments as they are now: runs the launch
/// through [`launch::run`] when its turn comes (enqueued as `CL_COMMAND_NDRANGE_KERNEL`).
pub fn launch_work(
    q: &Ref<Queue>,
    k: &Ref<Kernel>,
    work_dim: cl_uint,
    range: Range,
    local_size_given: Option<[u64; 3]>,
) -> Result<Work, cl_int> {
    let BoundArgs {
        args,
        mem_flags,
        keep,
    } = bind_args(q, k)?;
    if local_mem_size(k) > LOCAL_MEM_SIZE {
        return Err(CL_OUT_OF_RESOURCES);
    }
    let launch = Launch {
        kernel: k.info.name.clone(),
        work_dim,
        global_offset: range.offset,
        global_size: range.global,
        local_size: range.local,
        args,
    };
    let empty = range.global.contains(&0);
    let kernel = k.clone();
    let context = q.context.clone();
    Ok(Box::new(move || {
        // The kernel and every buffer argument stay alive until the command completes.
        let _keep = keep;
        if empty {
            return Ok(());
        }
        // The program's text as it is now (a rebuild may replace it), not a copy of it.
        let (spirv, options) = {
            let st = kernel.program.state.lock();
            (st.spirv.clone(), st.options.clone())
        };
        let how = launch::Enqueued {
            program: launch::ProgramText {
                source: kernel.program.source.as_deref(),
                spirv: spirv.as_deref().or(kernel.program.il.as_deref()),
                options: &options,
            },
            kernel: &kernel.info,
            local_size_given,
            mem_flags: &mem_flags,
        };
        match launch::run(&kernel.loaded, &launch, &how) {
            Ok(_) => Ok(()),
            Err(e) => {
                let text = format!("ShadowCL: kernel {} failed: {e}", kernel.info.name);
                tracing::error!("{text}");
                context.notify(&text);
                Err(CL_OUT_OF_RESOURCES)
            }
        }
    }))
}
