//! Module-level lowering: capabilities, builtins, debug info, globals, functions.

use super::*;

pub(super) fn builtin_of(b: spirv::BuiltIn) -> Option<Builtin> {
    use spirv::BuiltIn as B;
    Some(match b {
        B::GlobalInvocationId => Builtin::GlobalId,
        B::LocalInvocationId => Builtin::LocalId,
        B::WorkgroupId => Builtin::GroupId,
        B::GlobalSize => Builtin::GlobalSize,
        B::WorkgroupSize => Builtin::LocalSize,
        B::EnqueuedWorkgroupSize => Builtin::EnqueuedLocalSize,
        B::NumWorkgroups => Builtin::NumGroups,
        B::GlobalOffset => Builtin::GlobalOffset,
        B::WorkDim => Builtin::WorkDim,
        B::GlobalLinearId => Builtin::GlobalLinearId,
        B::LocalInvocationIndex => Builtin::LocalIndex,
        B::SubgroupSize => Builtin::SubgroupSize,
        B::SubgroupMaxSize => Builtin::SubgroupMaxSize,
        B::NumSubgroups | B::NumEnqueuedSubgroups => Builtin::NumSubgroups,
        B::SubgroupId => Builtin::SubgroupId,
        B::SubgroupLocalInvocationId => Builtin::SubgroupLocalId,
        _ => return None,
    })
}

pub(super) const ALLOWED_CAPS: &[spirv::Capability] = {
    use spirv::Capability as C;
    &[
        C::Addresses,
        C::Linkage,
        C::Kernel,
        C::Vector16,
        C::Float16Buffer,
        C::Float16,
        C::Float64,
        C::Int64,
        C::Int64Atomics,
        C::Int8,
        C::Int16,
        C::GenericPointer,
        C::Groups,
        C::LiteralSampler,
        C::ImageBasic,
        C::Sampled1D,
        C::SampledBuffer,
        C::ExpectAssumeKHR,
        C::KernelAttributesINTEL,
    ]
};

/// A module-level OpExtInst: result id and the words from the set id on.
pub(super) struct DbgInst {
    pub(super) id: Word,
    pub(super) w: Vec<u32>,
}

/// `spec_ops`: each OpSpecConstantOp's result id → its opcode and operand words (the module
/// holds an OpUndef in its place, see [`super::load`]).
pub(super) fn lower_module(
    m: &Module,
    dbg: &[DbgInst],
    spec_ops: HashMap<Word, Vec<u32>>,
) -> R<Loaded> {
    let ptr_size = check_header(m)?;
    let mut md = Mod {
        m,
        ptr_size,
        types: HashMap::new(),
        id_ty: HashMap::new(),
        consts: HashMap::new(),
        bad_consts: HashMap::new(),
        module_data: 0,
        spec_ops,
        builtins: HashMap::new(),
        mod_vars: HashMap::new(),
        names: HashMap::new(),
        decos: HashMap::new(),
        opencl_std: HashSet::new(),
        strings: HashMap::new(),
        func_index: HashMap::new(),
        layouts: HashMap::new(),
        code: Code::default(),
        locs: vec![],
        aligns: vec![],
        stores_back: vec![],
        files: HashMap::new(),
        inst_counter: 0,
    };
    read_names_and_decorations(&mut md)?;
    lower_globals(&mut md)?;
    let bodies = index_functions(&mut md)?;
    let mut uses: Vec<FnUses> = vec![];
    for f in &bodies {
        let u = lower_function(&mut md, f)?;
        uses.push(u);
    }
    let kernels = lower_kernels(&mut md, &bodies, &uses, dbg)?;
    md.code
        .verify()
        .map_err(|e| malformed(format!("internal: lowered code is inconsistent: {e}")))?;
    Ok(Loaded {
        code: md.code,
        kernels,
        locs: md.locs,
        aligns: md.aligns,
        stores_back: md.stores_back,
    })
}

/// Capabilities ShadowCL runs, and the addressing model: returns the pointer size.
fn check_header(m: &Module) -> R<u64> {
    for c in &m.capabilities {
        if let Some(Operand::Capability(cap)) = c.operands.first() {
            if !ALLOWED_CAPS.contains(cap) {
                return Err(LoadError::Unsupported {
                    what: format!("capability {cap:?}"),
                    function: None,
                });
            }
        }
    }
    let ptr_size = match m.memory_model.as_ref().and_then(|i| i.operands.first()) {
        Some(Operand::AddressingModel(spirv::AddressingModel::Physical64)) => 8,
        Some(Operand::AddressingModel(a)) => {
            return Err(LoadError::Unsupported {
                what: format!("addressing model {a:?} (only Physical64 is supported)"),
                function: None,
            })
        }
        _ => return Err(malformed("missing OpMemoryModel")),
    };
    Ok(ptr_size)
}

/// The OpenCL.std import, names, source strings and decorations.
fn read_names_and_decorations(md: &mut Mod) -> R<()> {
    for i in &md.m.ext_inst_imports {
        if let (Some(id), Some(Operand::LiteralString(s))) = (i.result_id, i.operands.first()) {
            if s == "OpenCL.std" {
                md.opencl_std.insert(id);
            }
        }
    }
    for i in &md.m.debug_names {
        if i.class.opcode == S::Name {
            if let (Ok(id), Some(Operand::LiteralString(s))) = (id_at(i, 0), i.operands.get(1)) {
                md.names.insert(id, s.clone());
            }
        }
    }
    for i in &md.m.debug_string_source {
        if i.class.opcode == S::String {
            if let (Some(id), Some(Operand::LiteralString(s))) = (i.result_id, i.operands.first()) {
                md.strings.insert(id, s.clone());
            }
        }
    }
    for i in &md.m.annotations {
        match i.class.opcode {
            S::Decorate => {
                let id = id_at(i, 0)?;
                if let Some(Operand::Decoration(d)) = i.operands.get(1) {
                    md.decos
                        .entry(id)
                        .or_default()
                        .push((*d, i.operands[2..].to_vec()));
                }
            }
            S::DecorationGroup | S::GroupDecorate | S::MemberDecorate | S::DecorateId => {}
            _ => {}
        }
    }
    Ok(())
}

/// Types, constants and module variables, in order.
fn lower_globals(md: &mut Mod) -> R<()> {
    // Types, constants and module variables, in order. Each id is defined once: a type
    // defined again over an earlier one could name itself through the types between (a
    // vector of a vector of itself), and every walk over types would recurse forever.
    let mut defined = HashSet::new();
    for inst in &md.m.types_global_values {
        let op = inst.class.opcode;
        if matches!(op, S::Line | S::NoLine) {
            continue;
        }
        if op == S::TypeForwardPointer {
            continue;
        }
        let id = result_id(inst)?;
        if !defined.insert(id) {
            return Err(malformed(format!("%{id} is defined twice")));
        }
        if let Some(t) = inst.result_type {
            md.id_ty.insert(id, t);
        }
        if inst.class.opcode == S::Variable {
            module_variable(md, inst, id)?;
            continue;
        }
        if is_type(op) {
            let t = md.make_type(inst)?;
            md.types.insert(id, t);
            continue;
        }
        let ty = result_ty(inst)?;
        match md.const_lanes(inst, ty) {
            Ok(v) => {
                md.consts.insert(id, v);
            }
            Err(e) => {
                md.bad_consts.insert(id, e.to_string());
            }
        }
    }
    Ok(())
}

/// A module-scope OpVariable: a builtin input, a `__constant` or program-scope `global`
/// variable or clang's constant initializer of a local (launch allocation), or a `__local`
/// one (per-group allocation).
fn module_variable(md: &mut Mod, inst: &Instruction, id: Word) -> R<()> {
    let ty = result_ty(inst)?;
    let (sc, pointee) = match md.ty(ty)?.k {
        TypeKind::Ptr(sc, p) => (sc, p),
        _ => return Err(malformed("variable of non-pointer type")),
    };
    let name = md.names.get(&id).cloned().unwrap_or_default();
    let init = id_at(inst, 1).ok();
    // A work-item builtin whatever its storage class: llvm-spirv writes `Input`, older
    // versions (pyopencl's add-vectors-64.spv) `UniformConstant` with Import linkage.
    if let Some(b) = md.deco_ops(id, Decoration::BuiltIn) {
        let b = match b {
            [Operand::BuiltIn(b), ..] => builtin_of(*b),
            _ => None,
        };
        let b = b.ok_or_else(|| LoadError::Unsupported {
            what: format!("builtin variable {name}"),
            function: None,
        })?;
        md.builtins.insert(id, b);
        return Ok(());
    }
    // A variable another module defines: nothing here links it, so running without it
    // would read bytes that are not its.
    if let Some(
        [Operand::LiteralString(symbol), Operand::LinkageType(spirv::LinkageType::Import)],
    ) = md.deco_ops(id, Decoration::LinkageAttributes)
    {
        return Err(LoadError::Unsupported {
            what: format!("imported variable `{symbol}`, which the module does not define"),
            function: None,
        });
    }
    match sc {
        StorageClass::Input => {
            return Err(LoadError::Unsupported {
                what: format!("input variable {name}"),
                function: None,
            })
        }
        // A private module variable is clang's initializer of a local aggregate that is
        // partly run-time (`struct S s = {{1}, &x}` at -O0: `@constinit`, a `private
        // global` copied into the local): OpenCL C has no program-scope private variables,
        // so nothing else makes one, and nothing writes it: constant data.
        StorageClass::Function | StorageClass::Private if init.is_some() => {
            add_const_var(md, id, name, pointee, init, false)?
        }
        StorageClass::UniformConstant | StorageClass::CrossWorkgroup => add_const_var(
            md,
            id,
            name,
            pointee,
            init,
            sc == StorageClass::CrossWorkgroup,
        )?,
        StorageClass::Workgroup => {
            let elem_size = element_size(md, pointee)?;
            let size = md.ty(pointee)?.size;
            let k = md.code.local_vars.len() as u32;
            md.code.local_vars.push(ModVar {
                name: name.rsplit('.').next().unwrap_or_default().into(),
                size,
                elem_size,
                init: vec![],
                writable: true,
            });
            md.mod_vars.insert(id, (true, k));
            md.consts
                .insert(id, vec![ptr::enc(ptr::TAG_LOCAL, k as u64, 0)]);
        }
        sc => {
            return Err(LoadError::Unsupported {
                what: format!("module variable {name} in storage class {sc:?}"),
                function: None,
            })
        }
    }
    Ok(())
}

/// The size of a module variable's element (reports name "element i"): an array's
/// element, else the whole variable; at least 1.
fn element_size(md: &Mod, pointee: Word) -> R<u32> {
    let pt = md.ty(pointee)?;
    let size = match pt.k {
        TypeKind::Array(e, _) => md.ty(e)?.size,
        _ => pt.size,
    };
    Ok((size as u32).max(1))
}

/// A module variable in launch memory (`writable`: a program-scope `global` one; else
/// constant data), initialised from `init`.
fn add_const_var(
    md: &mut Mod,
    id: Word,
    name: String,
    pointee: Word,
    init: Option<Word>,
    writable: bool,
) -> R<()> {
    let init = md.var_init_bytes(pointee, init)?;
    let elem_size = element_size(md, pointee)?;
    let k = md.code.const_vars.len() as u32;
    md.code.const_vars.push(ModVar {
        name: name.into(),
        size: init.len() as u64,
        elem_size,
        init,
        writable,
    });
    md.mod_vars.insert(id, (false, k));
    md.consts
        .insert(id, vec![ptr::enc(ptr::TAG_LAUNCH, k as u64 + 1, 0)]);
    Ok(())
}

/// Numbers the functions with bodies (calls may go forward) and records the type of every
/// id inside them.
fn index_functions<'m>(md: &mut Mod<'m>) -> R<Vec<&'m rspirv::dr::Function>> {
    // Function indices first (calls may go forward).
    let mut bodies = vec![];
    for f in &md.m.functions {
        let def = f
            .def
            .as_ref()
            .ok_or_else(|| malformed("function without OpFunction"))?;
        let id = result_id(def)?;
        if f.blocks.is_empty() {
            continue;
        }
        md.func_index.insert(id, bodies.len() as u32);
        bodies.push(f);
    }
    for f in &md.m.functions {
        for p in &f.parameters {
            if let (Some(id), Some(t)) = (p.result_id, p.result_type) {
                md.id_ty.insert(id, t);
            }
        }
        for b in &f.blocks {
            for i in &b.instructions {
                if let (Some(id), Some(t)) = (i.result_id, i.result_type) {
                    md.id_ty.insert(id, t);
                }
            }
        }
    }
    Ok(bodies)
}

/// The kernels: each entry point's lowered function and argument information.
fn lower_kernels(
    md: &mut Mod,
    bodies: &[&rspirv::dr::Function],
    uses: &[FnUses],
    dbg: &[DbgInst],
) -> R<Vec<KernelInfo>> {
    let mut writes = ParamWrites::new(md.m, bodies, md.func_index.clone(), md.opencl_std.clone());
    let mut kernels = vec![];
    for ep in &md.m.entry_points {
        if !matches!(
            ep.operands.first(),
            Some(Operand::ExecutionModel(spirv::ExecutionModel::Kernel))
        ) {
            continue;
        }
        let fid = id_at(ep, 1)?;
        let name = match ep.operands.get(2) {
            Some(Operand::LiteralString(s)) => s.clone(),
            _ => return Err(malformed("entry point without a name")),
        };
        let fi = *md
            .func_index
            .get(&fid)
            .ok_or_else(|| LoadError::Unsupported {
                what: format!("kernel {name} has no body"),
                function: Some(name.clone()),
            })?;
        let (mut info, kc) = kernel_info(md, bodies[fi as usize], fid, fi, &name, uses, dbg)?;
        // Buffer pointers the kernel never writes through.
        for (k, (arg, param)) in info.args.iter_mut().zip(&kc.params).enumerate() {
            arg.never_written =
                matches!(param, ParamKind::Buffer { .. }) && !writes.may_write(fi, k);
        }
        kernels.push(info);
        md.code.kernels.push(kc);
    }
    Ok(kernels)
}

pub(super) fn is_type(op: S) -> bool {
    matches!(
        op,
        S::TypeVoid
            | S::TypeBool
            | S::TypeInt
            | S::TypeFloat
            | S::TypeVector
            | S::TypeArray
            | S::TypeRuntimeArray
            | S::TypeStruct
            | S::TypePointer
            | S::TypeFunction
            | S::TypeEvent
            | S::TypeSampler
            | S::TypeOpaque
            | S::TypeImage
            | S::TypeSampledImage
    )
}
