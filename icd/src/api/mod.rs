//! The C API: every `extern "C"` entry point, with its argument checks and the C conventions
//! (error codes and `errcode_ret`, the size protocol of `clGet*Info`, raw pointers, handing
//! handles to the application). Objects and what they do are [`crate::core`]'s.
//!
//! An entry point is `pub unsafe extern "C" fn clXxx` wrapping, once, through [`entry::call`]
//! or [`entry::call_ptr`], a closure that returns `Result<_, cl_int>`: it checks the
//! arguments and calls into `core` (commands: through [`queue::enqueue`], with the work to
//! run). `icd/tools/gen_dispatch.py` puts every such function it finds under `src/` into the
//! dispatch table. One file per object family; [`mem`] holds what buffers and images share.

pub(crate) mod buffer;
pub(crate) mod context;
pub(crate) mod entry;
pub(crate) mod event;
pub(crate) mod image;
pub(crate) mod info;
pub(crate) mod kernel;
pub(crate) mod mem;
pub(crate) mod platform;
pub(crate) mod program;
pub(crate) mod queue;
pub(crate) mod sampler;
