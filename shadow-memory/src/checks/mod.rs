//! One module per check, each an `impl LaunchChecker` block the observer seam
//! (`launch.rs`) calls into.

pub(crate) mod access_rules;
mod async_copy;
mod bounds;
pub(crate) mod divergence;
mod hang;
pub(crate) mod races;
pub(crate) mod sync;
