//! One function at a time: its registers, blocks and phis (`FunctionLowering`).

use super::*;

/// What a lowered function references: module variables, callees, bytes of private
/// variables.
pub(super) type FnUses = (HashSet<Word>, HashSet<u32>, u64);

/// Phis of one block: (result, [(value, predecessor)]).
pub(super) type Phis = Vec<(Word, Vec<(Word, Word)>)>;

/// An edge stub: the phi moves `(dst, src, lanes)` of one edge, the block key it continues
/// to, and the branch it belongs to (its ops report that instruction's source line: a
/// work-item stopped on a loop's back edge is at the loop, not at the function's end).
pub(super) struct Stub {
    moves: Vec<(u32, u32, u32)>,
    to: u32,
    inst: u32,
}

/// Per-function lowering state.
pub(super) struct FunctionLowering<'a, 'm> {
    pub(super) md: &'a mut Mod<'m>,
    pub(super) fname: String,
    pub(super) slots: HashMap<Word, (u32, u32)>,
    pub(super) const_slots: HashMap<Word, u32>,
    pub(super) consts: Vec<u64>,
    pub(super) const_base: u32,
    pub(super) temp_base: u32,
    pub(super) block_key: HashMap<Word, u32>,
    /// Phis per block label: (dst, [(value, pred)]).
    pub(super) phis: HashMap<Word, Phis>,
    pub(super) stubs: Vec<Stub>,
    pub(super) nblocks: u32,
    pub(super) start: usize,
    pub(super) switch_tabs: Vec<u32>,
    pub(super) used_vars: HashSet<Word>,
    pub(super) callees: HashSet<u32>,
    pub(super) cur_inst: u32,
    /// Access chains into builtin variables: id → (builtin, component).
    pub(super) builtin_ptrs: HashMap<Word, (Builtin, u8)>,
    /// Whole loads of a work-item builtin vector: id → builtin (extracts past its third
    /// component answer [`Builtin::past_last_dim`]).
    pub(super) builtin_vectors: HashMap<Word, Builtin>,
    pub(super) private_bytes: u64,
    /// Sign extensions to 64 bits used only as access-chain indices: result → (source, bits).
    pub(super) sconv: HashMap<Word, (Word, u8)>,
    /// Pointer casts and access chains: result → the pointer they start from.
    pub(super) ptr_base: HashMap<Word, Word>,
    /// Ids used only as pointers memory is accessed through ([`dereferenced_only`]): an
    /// access chain among them may not end one past its array.
    pub(super) deref_only: HashSet<Word>,
}

impl<'a, 'm> FunctionLowering<'a, 'm> {
    pub(super) fn unsup(&self, what: impl Into<String>) -> LoadError {
        LoadError::Unsupported {
            what: what.into(),
            function: Some(self.fname.clone()),
        }
    }
    pub(super) fn emit(&mut self, op: Op) {
        self.md.code.ops.push(op);
        self.md.code.inst_of.push(self.cur_inst);
    }
    pub(super) fn dst(&self, inst: &Instruction) -> R<u32> {
        let id = result_id(inst)?;
        self.slots
            .get(&id)
            .map(|s| s.0)
            .ok_or_else(|| malformed(format!("%{id} has no register")))
    }
    /// Slot of an operand id (allocating a constant slot on first use).
    pub(super) fn val(&mut self, id: Word) -> R<u32> {
        if let Some(s) = self.slots.get(&id) {
            return Ok(s.0);
        }
        if let Some(s) = self.const_slots.get(&id) {
            return Ok(*s);
        }
        if let Some(v) = self.md.consts.get(&id) {
            let s = self.const_base + self.consts.len() as u32;
            let v = v.clone();
            self.consts.extend_from_slice(&v);
            self.const_slots.insert(id, s);
            if self.md.mod_vars.contains_key(&id) {
                self.used_vars.insert(id);
            }
            return Ok(s);
        }
        if let Some(e) = self.md.bad_consts.get(&id) {
            return Err(self.unsup(e.clone()));
        }
        if self.md.builtins.contains_key(&id) {
            return Err(self.unsup("builtin variable used other than by a load"));
        }
        Err(malformed(format!("%{id} is used but never defined")))
    }
    pub(super) fn lanes_of_val(&self, id: Word) -> R<u32> {
        Ok(self.md.ty_of(id)?.lanes as u32)
    }
    pub(super) fn const_val(&self, id: Word) -> Option<i64> {
        let v = *self.md.consts.get(&id)?.first()?;
        let w = match self.md.ty_of(id).ok()?.k {
            TypeKind::Int(w) => w,
            _ => 64,
        };
        Some(sext(v, w))
    }
    pub(super) fn zero_slot(&mut self) -> u32 {
        self.const_slot(0)
    }
    /// A slot holding `v` for the whole function.
    pub(super) fn const_slot(&mut self, v: u64) -> u32 {
        let s = self.const_base + self.consts.len() as u32;
        self.consts.push(v);
        s
    }
    pub(super) fn mov(&mut self, d: u32, s: u32, n: u32) {
        if d == s || n == 0 {
            return;
        }
        if n == 1 {
            self.emit(Op::Mov { d, s });
        } else {
            self.emit(Op::MovN { d, s, n });
        }
    }
    pub(super) fn key(&self, label: Word) -> R<u32> {
        self.block_key
            .get(&label)
            .copied()
            .ok_or_else(|| malformed(format!("branch to %{label}, which is not a block")))
    }
    pub(super) fn edge_moves(&mut self, pred: Word, succ: Word) -> R<Vec<(u32, u32, u32)>> {
        let Some(ph) = self.phis.get(&succ).cloned() else {
            return Ok(vec![]);
        };
        let mut mv = vec![];
        for (dst, inc) in ph {
            let (v, _) = inc
                .iter()
                .find(|(_, p)| *p == pred)
                .ok_or_else(|| malformed(format!("phi %{dst} has no value for %{pred}")))?;
            let d = self.slots.get(&dst).map(|s| s.0).unwrap_or(0);
            let n = self.lanes_of_val(dst)?;
            let s = self.val(*v)?;
            mv.push((d, s, n));
        }
        Ok(mv)
    }
    pub(super) fn emit_moves(&mut self, mv: &[(u32, u32, u32)]) {
        let overlaps = mv.iter().any(|&(_, s, sn)| {
            mv.iter().any(|&(d, _, dn)| {
                s < d + dn && d < s + sn && !(s == d && sn == dn && mv.len() == 1)
            })
        });
        if overlaps {
            let mut t = self.temp_base;
            let mut temps = vec![];
            for &(_, s, n) in mv {
                self.mov(t, s, n);
                temps.push(t);
                t += n;
            }
            for (&(d, _, n), t) in mv.iter().zip(temps) {
                self.mov(d, t, n);
            }
        } else {
            for &(d, s, n) in mv {
                self.mov(d, s, n);
            }
        }
    }
    /// Branch target for an edge: the block itself, or a stub that does the phi moves.
    pub(super) fn edge_target(&mut self, pred: Word, succ: Word) -> R<u32> {
        let mv = self.edge_moves(pred, succ)?;
        let k = self.key(succ)?;
        if mv.is_empty() {
            return Ok(k);
        }
        self.stubs.push(Stub {
            moves: mv,
            to: k,
            inst: self.cur_inst,
        });
        Ok(self.nblocks + self.stubs.len() as u32 - 1)
    }
    /// Element bits of a scalar or vector operand type.
    pub(super) fn sc(&self, ty: Word) -> R<(Elem, u8, u32)> {
        self.md.scalar(ty).map_err(|e| match e {
            LoadError::Unsupported { what, .. } => self.unsup(what),
            e => e,
        })
    }
}

/// Where each SPIR-V id of a function lives in its frame, before any code is emitted.
struct FrameLayout {
    slots: HashMap<Word, (u32, u32)>,
    params: Vec<(u32, u32)>,
    phis: HashMap<Word, Phis>,
    block_key: HashMap<Word, u32>,
    /// Most phi lanes of any one block: the edge-move temporaries.
    max_phi: u32,
    /// First free slot.
    next: u32,
}

/// Slots: parameters first (callers rely on that), then every result; phis are noted per block.
fn frame_layout(md: &Mod, f: &rspirv::dr::Function, fname: &str) -> R<FrameLayout> {
    let lanes_of = |t: Word| -> R<u32> {
        let l = md.ty(t)?.lanes;
        if l > MAX_LANES {
            return Err(LoadError::Unsupported {
                what: "value with too many lanes".into(),
                function: Some(fname.to_string()),
            });
        }
        Ok(l as u32)
    };
    let mut fl = FrameLayout {
        slots: HashMap::new(),
        params: vec![],
        phis: HashMap::new(),
        block_key: HashMap::new(),
        max_phi: 0,
        next: 0,
    };
    for p in &f.parameters {
        let id = result_id(p)?;
        let n = lanes_of(result_ty(p)?)?;
        fl.slots.insert(id, (fl.next, n));
        fl.params.push((fl.next, n));
        fl.next += n;
    }
    for (bi, b) in f.blocks.iter().enumerate() {
        let label = b
            .label
            .as_ref()
            .and_then(|l| l.result_id)
            .ok_or_else(|| malformed("block without label"))?;
        fl.block_key.insert(label, bi as u32);
        let mut phi_lanes = 0;
        for i in &b.instructions {
            if let (Some(id), Some(t)) = (i.result_id, i.result_type) {
                let n = lanes_of(t)?;
                fl.slots.insert(id, (fl.next, n));
                fl.next = fl
                    .next
                    .checked_add(n)
                    .ok_or_else(|| malformed("frame too large"))?;
                if i.class.opcode == S::Phi {
                    phi_lanes += n;
                    let mut inc = vec![];
                    for k in (0..i.operands.len()).step_by(2) {
                        inc.push((id_at(i, k)?, id_at(i, k + 1)?));
                    }
                    fl.phis.entry(label).or_default().push((id, inc));
                }
            }
        }
        fl.max_phi = fl.max_phi.max(phi_lanes);
    }
    Ok(fl)
}

/// Sign extensions used only as access-chain indices (the common `a[i]` pattern): they are
/// folded into the access chain instead of run on their own.
fn index_sign_extensions(md: &Mod, f: &rspirv::dr::Function) -> HashMap<Word, (Word, u8)> {
    let mut use_count: HashMap<Word, u32> = HashMap::new();
    let mut index_uses: HashMap<Word, u32> = HashMap::new();
    let mut sconv: HashMap<Word, (Word, u8)> = HashMap::new();
    for b in &f.blocks {
        for i in &b.instructions {
            let gep = matches!(
                i.class.opcode,
                S::AccessChain
                    | S::InBoundsAccessChain
                    | S::PtrAccessChain
                    | S::InBoundsPtrAccessChain
            );
            for (k, o) in i.operands.iter().enumerate() {
                if let Operand::IdRef(x) = o {
                    *use_count.entry(*x).or_default() += 1;
                    if gep && k > 0 {
                        *index_uses.entry(*x).or_default() += 1;
                    }
                }
            }
            if i.class.opcode == S::SConvert {
                if let (Some(id), Ok(src), Some(rt)) = (i.result_id, id_at(i, 0), i.result_type) {
                    let from = md
                        .id_ty
                        .get(&src)
                        .and_then(|t| md.types.get(t))
                        .map(|t| t.k.clone());
                    let to = md.types.get(&rt).map(|t| t.k.clone());
                    if let (Some(TypeKind::Int(fw)), Some(TypeKind::Int(64))) = (from, to) {
                        sconv.insert(id, (src, fw));
                    }
                }
            }
        }
    }
    sconv.retain(|id, _| use_count.get(id) == index_uses.get(id));
    sconv
}

/// The ids of `f` used only as pointers memory is accessed through: the pointer operand of
/// loads, stores, copies and atomics, or the base of an access chain into the element (a
/// member of an element past the end of an array is no object either), or a cast of one
/// of those (a union member).
fn dereferenced_only(f: &rspirv::dr::Function) -> HashSet<Word> {
    let mut deref = HashSet::new();
    let mut other = HashSet::new();
    // (source, result) of the pointer casts: the source is as the result is used.
    let mut casts = vec![];
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        if let (S::Bitcast, Some(r), Ok(src)) = (i.class.opcode, i.result_id, id_at(i, 0)) {
            casts.push((src, r));
            deref.insert(src);
            continue;
        }
        let pointers = match i.class.opcode {
            S::Load
            | S::Store
            | S::AccessChain
            | S::InBoundsAccessChain
            | S::AtomicLoad
            | S::AtomicStore
            | S::AtomicExchange
            | S::AtomicCompareExchange
            | S::AtomicIIncrement
            | S::AtomicIDecrement
            | S::AtomicIAdd
            | S::AtomicISub
            | S::AtomicSMin
            | S::AtomicUMin
            | S::AtomicSMax
            | S::AtomicUMax
            | S::AtomicAnd
            | S::AtomicOr
            | S::AtomicXor => 1,
            S::CopyMemory | S::CopyMemorySized => 2,
            _ => 0,
        };
        for (k, o) in i.operands.iter().enumerate() {
            if let Operand::IdRef(x) = o {
                if k < pointers {
                    deref.insert(*x);
                } else {
                    other.insert(*x);
                }
            }
        }
    }
    loop {
        let before = other.len();
        for &(src, r) in &casts {
            if other.contains(&r) || !deref.contains(&r) {
                other.insert(src);
            }
        }
        if other.len() == before {
            break;
        }
    }
    deref.retain(|x| !other.contains(x));
    deref
}

/// Pointer casts and access chains of `f`: result → the pointer each starts from.
fn pointer_bases(f: &rspirv::dr::Function) -> HashMap<Word, Word> {
    let mut bases = HashMap::new();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        let derives = matches!(
            i.class.opcode,
            S::Bitcast
                | S::AccessChain
                | S::InBoundsAccessChain
                | S::PtrAccessChain
                | S::InBoundsPtrAccessChain
        );
        if let (true, Some(id), Ok(base)) = (derives, i.result_id, id_at(i, 0)) {
            bases.insert(id, base);
        }
    }
    bases
}

/// A by-value pointer parameter: (param id, caller's slot, slot of the copy, size, align).
type ByVal = (Word, u32, u32, u32, u32);

/// A `ByVal` pointer parameter points at the callee's own copy of the argument (LLVM's
/// byval): the caller's object must not see the callee's writes. Each gets a fresh slot
/// that the prologue points at a private copy.
fn byval_params(
    md: &Mod,
    f: &rspirv::dr::Function,
    fname: &str,
    fl: &mut FrameLayout,
) -> R<Vec<ByVal>> {
    let mut byval = vec![];
    for p in &f.parameters {
        let id = result_id(p)?;
        if !md.param_attr(id, spirv::FunctionParameterAttribute::ByVal) {
            continue;
        }
        let TypeKind::Ptr(StorageClass::Function, pointee) = md.ty(result_ty(p)?)?.k else {
            continue;
        };
        let t = md.ty(pointee)?;
        let size = u32::try_from(t.size).map_err(|_| LoadError::Unsupported {
            what: "by-value parameter larger than 4 GiB".into(),
            function: Some(fname.to_string()),
        })?;
        let align = u32::try_from(t.align).unwrap_or(u32::MAX);
        let orig = fl.slots.get(&id).map(|s| s.0).unwrap_or(0);
        byval.push((id, orig, fl.next, size, align));
        fl.next = fl
            .next
            .checked_add(1)
            .ok_or_else(|| malformed("frame too large"))?;
    }
    Ok(byval)
}

pub(super) fn lower_function(md: &mut Mod, f: &rspirv::dr::Function) -> R<FnUses> {
    let def = f
        .def
        .as_ref()
        .ok_or_else(|| malformed("function without OpFunction"))?;
    let fid = result_id(def)?;
    let fname = md.names.get(&fid).cloned().unwrap_or(format!("%{fid}"));
    let mut fl = frame_layout(md, f, &fname)?;
    let sconv = index_sign_extensions(md, f);
    let byval = byval_params(md, f, &fname, &mut fl)?;
    let temp_base = fl.next;
    let const_base = fl.next + fl.max_phi + 4;
    let start = md.code.ops.len();
    let entry = start as u32;
    let nblocks = f.blocks.len() as u32;
    let mut fx = FunctionLowering {
        md,
        fname: fname.clone(),
        slots: fl.slots,
        const_slots: HashMap::new(),
        consts: vec![],
        const_base,
        temp_base,
        block_key: fl.block_key,
        phis: fl.phis,
        stubs: vec![],
        nblocks,
        start,
        switch_tabs: vec![],
        used_vars: HashSet::new(),
        callees: HashSet::new(),
        cur_inst: 0,
        builtin_ptrs: HashMap::new(),
        builtin_vectors: HashMap::new(),
        private_bytes: 0,
        sconv,
        ptr_base: pointer_bases(f),
        deref_only: dereferenced_only(f),
    };
    emit_byval_copies(&mut fx, &byval);
    let key_pc = lower_blocks(&mut fx, f)?;
    resolve_branch_targets(&mut fx, key_pc);
    let frame = const_base + fx.consts.len() as u32;
    let used = std::mem::take(&mut fx.used_vars);
    let private = fx.private_bytes;
    let callees = std::mem::take(&mut fx.callees);
    let consts = std::mem::take(&mut fx.consts);
    md_push_func(
        fx.md,
        Func {
            name: fname,
            entry,
            frame,
            const_base,
            consts,
            params: fl.params,
            end: 0,
        },
    );
    Ok((used, callees, private))
}

/// By-value copies, attributed to the function's first instruction. The entry block is
/// never a branch target, so this prologue runs exactly once per call.
fn emit_byval_copies(fx: &mut FunctionLowering, byval: &[ByVal]) {
    fx.cur_inst = fx.md.inst_counter;
    for &(id, orig, copy, size, align) in byval {
        fx.private_bytes += u64::from(size);
        fx.emit(Op::Alloca {
            size,
            align,
            d: copy,
            watch: true,
        });
        // A by-value struct's padding is never written by the caller.
        fx.emit(Op::CopyMem {
            carry: true,
            d: copy,
            s: orig,
            size,
        });
        fx.slots.insert(id, (copy, 1));
    }
}

/// Lowers every block in order, tracking OpLine for source locations, then emits the phi
/// edge stubs. Returns the pc of each block key (blocks first, then stubs).
fn lower_blocks(fx: &mut FunctionLowering, f: &rspirv::dr::Function) -> R<Vec<u32>> {
    let mut key_pc = vec![0u32; f.blocks.len()];
    let part_accesses = part_accesses(fx.md, f);
    for (bi, b) in f.blocks.iter().enumerate() {
        key_pc[bi] = fx.md.code.ops.len() as u32;
        let label = b.label.as_ref().and_then(|l| l.result_id).unwrap_or(0);
        let mut loc: Option<SourceLoc> = None;
        // Loads of this block: result id to pointer id.
        let mut loaded: HashMap<Word, Word> = HashMap::new();
        for (li, inst) in b.instructions.iter().enumerate() {
            fx.cur_inst = fx.md.inst_counter;
            fx.md.inst_counter += 1;
            note_store_back(fx, inst, &mut loaded);
            match inst.class.opcode {
                S::Line => loc = source_loc(fx, inst)?,
                S::NoLine => loc = None,
                _ => {}
            }
            fx.md.locs.push(loc.clone());
            fx.md.aligns.push(0);
            match part_accesses.get(&(bi, li)) {
                None => lower_inst(fx, inst, label)?,
                Some((access, scratch)) => lower_part_access(fx, inst, access, *scratch)?,
            }
        }
    }
    let stubs = std::mem::take(&mut fx.stubs);
    for stub in stubs {
        key_pc.push(fx.md.code.ops.len() as u32);
        fx.cur_inst = stub.inst;
        fx.emit_moves(&stub.moves);
        fx.emit(Op::Br { t: stub.to });
    }
    Ok(key_pc)
}

/// Emits a part access in place of `inst` ([`PartAccess`]); `scratch`: a register free for
/// a part's address.
fn lower_part_access(
    fx: &mut FunctionLowering,
    inst: &Instruction,
    access: &PartAccess,
    scratch: Word,
) -> R<()> {
    let at = fx.val(scratch)?;
    // The part's address: the value's own at offset 0.
    let address = |fx: &mut FunctionLowering, p: u32, off: i64| {
        if off == 0 {
            p
        } else {
            fx.emit(Op::Gep { d: at, p, off });
            at
        }
    };
    match access {
        PartAccess::Skip => {}
        PartAccess::Store { parts } => {
            let p = fx.val(id_at(inst, 0)?)?;
            for &(off, ty, part, lane) in parts {
                let v = fx.val(part)? + lane;
                let to = address(fx, p, off);
                emit_store(fx, ty, to, v)?;
            }
        }
        PartAccess::Load { pointer, off, ty } => {
            let p = fx.val(*pointer)?;
            let from = address(fx, p, *off);
            emit_load(fx, *ty, fx.dst(inst)?, from)?;
        }
    }
    Ok(())
}

/// Notes an OpStore whose value is what an OpLoad of the same block read through the same
/// pointer id: a store that puts back what its work-item read there (`v = A[0]; A[0] = v;`).
/// The value's provenance is the instruction's own, not a coincidence of one input, so a
/// read racing only with such stores (that found the value still there) is a benign race.
/// Within one block an id names one address.
fn note_store_back(
    fx: &mut FunctionLowering,
    inst: &Instruction,
    loaded: &mut HashMap<Word, Word>,
) {
    match inst.class.opcode {
        S::Load => {
            if let (Some(result), Ok(p)) = (inst.result_id, id_at(inst, 0)) {
                loaded.insert(result, p);
            }
        }
        S::Store => {
            if let (Ok(p), Ok(v)) = (id_at(inst, 0), id_at(inst, 1)) {
                if loaded.get(&v) == Some(&p) {
                    fx.md.stores_back.push(fx.cur_inst);
                }
            }
        }
        _ => {}
    }
}

/// The location an OpLine names (line 0 means none).
fn source_loc(fx: &mut FunctionLowering, inst: &Instruction) -> R<Option<SourceLoc>> {
    let file = id_at(inst, 0)?;
    let fname = match fx.md.files.get(&file) {
        Some(f) => f.clone(),
        None => {
            let s: Arc<str> = fx.md.strings.get(&file).cloned().unwrap_or_default().into();
            fx.md.files.insert(file, s.clone());
            s
        }
    };
    let line = lit_at(inst, 1)? as u32;
    Ok((line != 0).then(|| SourceLoc {
        file: fname,
        line,
        column: lit_at(inst, 2).unwrap_or(0) as u32,
    }))
}

/// Branches and switch tables were emitted with block keys; they become pcs here.
fn resolve_branch_targets(fx: &mut FunctionLowering, key_pc: Vec<u32>) {
    let pc_of = |k: u32| key_pc.get(k as usize).copied().unwrap_or(0);
    for op in &mut fx.md.code.ops[fx.start..] {
        match op {
            Op::Br { t } => *t = pc_of(*t),
            Op::BrIf { t, f, .. } => {
                *t = pc_of(*t);
                *f = pc_of(*f);
            }
            _ => {}
        }
    }
    for &s in &fx.switch_tabs {
        let tab = &mut fx.md.code.switches[s as usize];
        tab.default = pc_of(tab.default);
        for c in &mut tab.cases {
            c.1 = pc_of(c.1);
        }
    }
}

pub(super) fn md_push_func(md: &mut Mod, mut f: Func) {
    f.end = md.code.ops.len() as u32;
    md.code.funcs.push(f);
}
