//! Which pointer parameters a function may write memory through.
//!
//! The race checker leaves alone the records that reads of memory no work-item of the launch
//! writes would only rename (reads never race with reads), so "never written" must be a
//! proof: a pointer is never written through when every use of it, and of every pointer made
//! from it (access chains, casts, phis, selects), reads memory, compares pointers, or passes
//! it to a parameter that is itself never written through. Any other use (a store through
//! it, an atomic, storing the pointer itself, turning it into an integer, returning it, an
//! instruction this module does not know) counts as a write.
//!
//! Performance: this proof is what lets the race check settle reads of read-only memory without
//! splitting shadow blocks (`KernelArg::never_written`; see `checks/races/lockstep.rs` in
//! shadow-memory). `const` proves nothing, and a cast takes the proof away. When in doubt the
//! analysis answers "may write".

use super::*;

/// Calls followed into callees; a deeper chain (a hostile module's) counts as a write, and
/// keeps the walk off the end of the stack.
const MAX_CALL_DEPTH: u32 = 32;

/// OpenCL.std instructions that only read through their pointer operands.
const READING_EXT: [spirv::CLOp; 6] = [
    spirv::CLOp::vloadn,
    spirv::CLOp::vload_half,
    spirv::CLOp::vload_halfn,
    spirv::CLOp::vloada_halfn,
    spirv::CLOp::prefetch,
    spirv::CLOp::printf,
];

/// Answers for the functions of one module, worked out on demand and kept.
pub(super) struct ParamWrites<'m> {
    bodies: &'m [&'m rspirv::dr::Function],
    func_index: HashMap<Word, u32>,
    opencl_std: HashSet<Word>,
    /// Extended instruction sets without semantics (debug information).
    non_semantic: HashSet<Word>,
    /// (function index, parameter position) → may write; `None` while being worked out
    /// (a call back into it, which OpenCL C forbids, counts as a write).
    known: HashMap<(u32, usize), Option<bool>>,
}

impl<'m> ParamWrites<'m> {
    pub(super) fn new(
        module: &'m Module,
        bodies: &'m [&'m rspirv::dr::Function],
        func_index: HashMap<Word, u32>,
        opencl_std: HashSet<Word>,
    ) -> ParamWrites<'m> {
        let non_semantic = module
            .ext_inst_imports
            .iter()
            .filter(|i| match i.operands.first() {
                Some(Operand::LiteralString(s)) => {
                    s.starts_with("NonSemantic.")
                        || s.starts_with("OpenCL.DebugInfo")
                        || s == "DebugInfo"
                }
                _ => false,
            })
            .filter_map(|i| i.result_id)
            .collect();
        ParamWrites {
            bodies,
            func_index,
            opencl_std,
            non_semantic,
            known: HashMap::new(),
        }
    }

    /// Whether function `fi` (an index into the bodies) may write memory through its
    /// parameter at `position`.
    pub(super) fn may_write(&mut self, fi: u32, position: usize) -> bool {
        self.may_write_within(fi, position, MAX_CALL_DEPTH)
    }

    fn may_write_within(&mut self, fi: u32, position: usize, depth: u32) -> bool {
        match self.known.get(&(fi, position)) {
            Some(Some(w)) => return *w,
            Some(None) => return true,
            None => {}
        }
        let Some(depth) = depth.checked_sub(1) else {
            // Not kept: a shallower call may still work it out.
            return true;
        };
        self.known.insert((fi, position), None);
        let w = self.work_out(fi, position, depth);
        self.known.insert((fi, position), Some(w));
        w
    }

    fn work_out(&mut self, fi: u32, position: usize, depth: u32) -> bool {
        let Some(f) = self.bodies.get(fi as usize).copied() else {
            return true;
        };
        let Some(param) = f.parameters.get(position).and_then(|p| p.result_id) else {
            return true;
        };
        let made = pointers_made_from(f, param);
        let uses = |i: &Instruction, k: usize| matches!(i.operands.get(k), Some(Operand::IdRef(x)) if made.contains(x));
        for i in f.blocks.iter().flat_map(|b| &b.instructions) {
            let used: Vec<usize> = (0..i.operands.len()).filter(|&k| uses(i, k)).collect();
            if used.is_empty() {
                continue;
            }
            let reads_only = match i.class.opcode {
                op if makes_pointer(op) => true,
                S::Load | S::AtomicLoad | S::PtrEqual | S::PtrNotEqual | S::PtrDiff => true,
                S::LifetimeStart | S::LifetimeStop => true,
                // Target, source (the size is an integer).
                S::CopyMemory | S::CopyMemorySized => used == [1],
                // Scope, destination, source, count, stride, event.
                S::GroupAsyncCopy => used == [2],
                S::ExtInst => match i.operands.first() {
                    Some(Operand::IdRef(set)) if self.non_semantic.contains(set) => true,
                    Some(Operand::IdRef(set)) if self.opencl_std.contains(set) => {
                        matches!(i.operands.get(1),
                            Some(Operand::LiteralExtInstInteger(n))
                                if READING_EXT.iter().any(|c| *c as u32 == *n))
                    }
                    _ => false,
                },
                S::FunctionCall => {
                    let callee = match i.operands.first() {
                        Some(Operand::IdRef(c)) => self.func_index.get(c).copied(),
                        _ => None,
                    };
                    match callee {
                        Some(c) => {
                            (used.iter()).all(|&k| k > 0 && !self.may_write_within(c, k - 1, depth))
                        }
                        None => false,
                    }
                }
                _ => false,
            };
            if !reads_only {
                return true;
            }
        }
        false
    }
}

/// Instructions whose result is a pointer into the memory of their pointer operand.
pub(super) fn makes_pointer(op: S) -> bool {
    matches!(
        op,
        S::AccessChain
            | S::InBoundsAccessChain
            | S::PtrAccessChain
            | S::InBoundsPtrAccessChain
            | S::Bitcast
            | S::PtrCastToGeneric
            | S::GenericCastToPtr
            | S::GenericCastToPtrExplicit
            | S::CopyObject
            | S::Phi
            | S::Select
    )
}

/// `param` and every pointer made from it in `f`: what [`makes_pointer`] makes from one of
/// them (any operand counts: a select's condition is a bool, an index an integer, so a use
/// there would be of a non-pointer, which these never are). One pass to index the makers by
/// what they take, then a walk: phis may name values defined later, and repeating passes
/// until nothing was added would take one pass per link of a chain (quadratic on a hostile
/// module).
fn pointers_made_from(f: &rspirv::dr::Function, param: Word) -> HashSet<Word> {
    let mut makers: HashMap<Word, Vec<Word>> = HashMap::new();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        let Some(r) = i.result_id.filter(|_| makes_pointer(i.class.opcode)) else {
            continue;
        };
        for o in &i.operands {
            if let Operand::IdRef(x) = o {
                makers.entry(*x).or_default().push(r);
            }
        }
    }
    let mut made = HashSet::from([param]);
    let mut todo = vec![param];
    while let Some(x) = todo.pop() {
        for &r in makers.get(&x).into_iter().flatten() {
            if made.insert(r) {
                todo.push(r);
            }
        }
    }
    made
}
