//! Objects and behaviour: what a handle stands for and what commands do, without the C
//! conventions (the entry points of [`crate::api`] check arguments and call in here).
//!
//! - [`object`]: handles, the application's reference counts, the registry of live objects;
//! - [`platform`]: the platform and its one device, their limits and clock;
//! - [`context`], [`mem`] (buffers), [`image`], [`sampler`], [`program`], [`kernel`]: the
//!   objects and what they do;
//! - [`queue`] and [`event`]: commands and their completion; [`executor`]: the thread of each
//!   queue that runs them; [`order`]: happens-before between commands, for the race checker;
//! - [`launch`]: the one place a kernel launch meets the interpreter, the checkers and capture;
//!   [`progress`]: the progress line of long launches on a terminal; [`signals`]: the report
//!   written when a signal ends the process;
//! - [`settings`]: every `SHADOWCL_*` variable, read once and passed down from there.

pub(crate) mod context;
pub(crate) mod event;
pub(crate) mod executor;
pub(crate) mod image;
pub(crate) mod kernel;
pub(crate) mod launch;
pub(crate) mod mem;
pub(crate) mod object;
pub(crate) mod order;
pub(crate) mod platform;
pub(crate) mod program;
pub(crate) mod progress;
pub(crate) mod queue;
pub(crate) mod sampler;
pub(crate) mod settings;
pub(crate) mod signals;

use std::ffi::c_void;

/// A `Send + Sync` raw pointer that the application owns (callback user data, host pointers).
#[derive(Clone, Copy, Debug)]
pub struct UserPtr(pub *mut c_void);

// SAFETY: we only hand it back to the application (callbacks) or use it under the rules the
// OpenCL specification gives for that pointer.
unsafe impl Send for UserPtr {}

// SAFETY: as above.
unsafe impl Sync for UserPtr {}
