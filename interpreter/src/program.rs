//! Loading and lowering SPIR-V (see `lower.rs` for the translation itself).

use std::sync::Arc;

use crate::ir::Code;
use crate::{Buffer, InstId, KernelInfo, LoadError, SourceLoc};

/// A loaded, lowered SPIR-V module. Cheap to share (`Arc`) between launches and threads.
pub struct Program {
    kernels: Vec<KernelInfo>,
    pub(crate) code: Code,
    locs: Vec<Option<SourceLoc>>,
    aligns: Vec<u8>,
    /// Sorted instruction indices ([`Program::stores_back`]).
    stores_back: Vec<u32>,
    /// Module `__constant` data, one buffer per variable (ids stable across launches).
    pub(crate) const_bufs: Vec<Arc<Buffer>>,
    /// See [`Program::atomics`].
    atomics: Atomics,
}

/// What atomic operations and fences a program's kernels have ([`Program::atomics`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Atomics {
    /// None at all.
    None,
    /// Only relaxed ones: they order nothing.
    Relaxed,
    /// Some may order memory: an acquire, release, acq_rel or seq_cst one, or one whose
    /// memory semantics are a run-time value.
    Ordering,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("kernels", &self.kernels)
            .field("ops", &self.code.ops.len())
            .finish()
    }
}

impl Program {
    /// Parses and translates a SPIR-V module (words in host order, magic number first).
    pub fn load(spirv: &[u8]) -> Result<Program, LoadError> {
        let l = crate::lower::load(spirv)?;
        let mut const_bufs = vec![];
        for v in &l.code.const_vars {
            let b = Buffer::new(v.init.len())
                .ok_or_else(|| LoadError::Malformed(format!("cannot allocate {}", v.name)))?;
            b.write(0, &v.init)
                .map_err(|e| LoadError::Malformed(e.to_string()))?;
            const_bufs.push(b);
        }
        let atomics = l.code.atomics();
        Ok(Program {
            atomics,
            kernels: l.kernels,
            code: l.code,
            locs: l.locs,
            aligns: l.aligns,
            stores_back: l.stores_back,
            const_bufs,
        })
    }

    /// The module's kernels (entry points with the `Kernel` execution model), in module order.
    pub fn kernels(&self) -> &[KernelInfo] {
        &self.kernels
    }

    pub fn kernel(&self, name: &str) -> Option<&KernelInfo> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// Source location of an instruction, when the module carried line information.
    pub fn location(&self, inst: InstId) -> Option<SourceLoc> {
        self.locs.get(inst.0 as usize).cloned().flatten()
    }

    /// The alignment each instruction's memory access requires (see [`Alignments`]).
    pub fn alignments(&self) -> Alignments<'_> {
        Alignments(&self.aligns)
    }

    /// Whether instruction `inst` is a store of the value its work-item loaded, in the same
    /// block, through the same pointer (`v = A[0]; A[0] = v;`): what it stores comes from
    /// those bytes, so when they still hold it the store changes nothing on any input.
    pub fn stores_back(&self, inst: InstId) -> bool {
        self.stores_back.binary_search(&inst.0).is_ok()
    }

    /// Whether any kernel's code (its function and the functions it calls) has an atomic
    /// operation or a fence that may order memory: an acquire, release, acq_rel or seq_cst
    /// one, or one whose memory semantics are a run-time value. Without any, atomics and
    /// fences synchronise nothing ([`crate::Observer::synchronise`] would report only
    /// relaxed ones). Worked out once, when the program loads.
    pub fn synchronises(&self) -> bool {
        self.atomics == Atomics::Ordering
    }

    /// What atomics and fences the kernels' code has (their function and the functions they
    /// call). Worked out once, when the program loads.
    pub fn atomics(&self) -> Atomics {
        self.atomics
    }

    /// Number of lowered executable instructions (for diagnostics and tests).
    pub fn op_count(&self) -> usize {
        self.code.ops.len()
    }

    /// Copies of the module's writable variables as they are now (read-only ones shared), for
    /// [`crate::Device::run_again`]; `None` when memory for a copy cannot be had.
    pub fn copy_variables(&self) -> Option<Vec<Arc<Buffer>>> {
        self.const_bufs
            .iter()
            .zip(&self.code.const_vars)
            .map(|(b, v)| {
                if v.writable {
                    b.copy()
                } else {
                    Some(b.clone())
                }
            })
            .collect()
    }

    /// The module's variables (the storage launches use), in allocation order.
    pub fn variables(&self) -> &[Arc<Buffer>] {
        &self.const_bufs
    }

    /// Names of the module-scope `__constant` variables, in allocation order.
    pub fn constant_names(&self) -> Vec<&str> {
        self.code.const_vars.iter().map(|v| &*v.name).collect()
    }
}

/// The alignment in bytes that each instruction's memory access requires: what the module
/// declares for a load, store or copy (`Aligned`, else the type's size), the natural one for
/// an atomic, a vload/vstore's element's (a vloada/vstorea's whole vector's), 1 for
/// everything else. Checkers report an access whose offset is not a multiple
/// of it (OpenCL C 6.3: undefined behaviour). A vector access is reported element by
/// element, a memory copy chunk by chunk; the requirement is the whole value's and holds
/// for the start of its first part ([`crate::Access::component`] 0).
#[derive(Clone, Copy, Debug, Default)]
pub struct Alignments<'a>(&'a [u8]);

impl Alignments<'_> {
    /// No requirements (every access aligned).
    pub const NONE: Alignments<'static> = Alignments(&[]);

    #[inline]
    pub fn of(self, inst: InstId) -> u32 {
        match self.0.get(inst.0 as usize) {
            // Stored as log2 + 1, 0 for none.
            Some(&a) if a > 0 => 1 << (a - 1),
            _ => 1,
        }
    }
}
