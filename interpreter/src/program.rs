//! Loading and lowering SPIR-V (owned by the interpreter work; this is the agreed API).

use crate::{InstId, KernelInfo, LoadError, SourceLoc};

/// A loaded, lowered SPIR-V module. Cheap to share (`Arc`) between launches and threads.
#[derive(Debug)]
pub struct Program {
    kernels: Vec<KernelInfo>,
}

impl Program {
    /// Parses and translates a SPIR-V module (words in host order, magic number first).
    pub fn load(spirv: &[u8]) -> Result<Program, LoadError> {
        let _ = spirv;
        Err(LoadError::Unsupported {
            what: "the interpreter is not built yet".into(),
            function: None,
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
        let _ = inst;
        None
    }
}
