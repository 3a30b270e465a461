//! What the platform needs to know of each kernel: argument names, types, qualifiers.

use super::*;

/// Type name as OpenCL C spells it, from the SPIR-V type (signedness is lost in SPIR-V).
pub(super) fn cl_type_name(md: &Mod, ty: Word) -> String {
    type_name_within(md, ty, MAX_TYPE_DEPTH)
}

/// `cl_type_name` that follows at most `depth` levels: pointers may point at types defined
/// later (forward pointers), so a malformed module can make a pointer its own pointee.
fn type_name_within(md: &Mod, ty: Word, depth: u32) -> String {
    let Some(depth) = depth.checked_sub(1) else {
        return "?".into();
    };
    let cl_type_name = |md: &Mod, ty: Word| type_name_within(md, ty, depth);
    let Ok(t) = md.ty(ty) else {
        return String::new();
    };
    match &t.k {
        TypeKind::Void => "void".into(),
        TypeKind::Bool => "bool".into(),
        TypeKind::Int(8) => "char".into(),
        TypeKind::Int(16) => "short".into(),
        TypeKind::Int(32) => "int".into(),
        TypeKind::Int(_) => "long".into(),
        TypeKind::Float(16) => "half".into(),
        TypeKind::Float(32) => "float".into(),
        TypeKind::Float(_) => "double".into(),
        TypeKind::Vector(e, n) => format!("{}{n}", cl_type_name(md, *e)),
        TypeKind::Ptr(_, p) => format!("{}*", cl_type_name(md, *p)),
        TypeKind::Struct(_) => {
            let n = md.names.get(&ty).cloned().unwrap_or_default();
            match n.strip_prefix("struct.") {
                Some(s) => format!("struct {s}"),
                None => n,
            }
        }
        TypeKind::Array(e, n) => format!("{}[{n}]", cl_type_name(md, *e)),
        TypeKind::Opaque(s) => (*s).into(),
        TypeKind::Func(..) => String::new(),
    }
}

/// OpenCL C name of an OpTypeImage (Dim, Arrayed).
pub(super) fn image_type_name(inst: &Instruction) -> &'static str {
    let arrayed = lit_at(inst, 3).unwrap_or(0) != 0;
    match (inst.operands.get(1), arrayed) {
        (Some(Operand::Dim(spirv::Dim::Dim1D)), false) => "image1d_t",
        (Some(Operand::Dim(spirv::Dim::Dim1D)), true) => "image1d_array_t",
        (Some(Operand::Dim(spirv::Dim::DimBuffer)), _) => "image1d_buffer_t",
        (Some(Operand::Dim(spirv::Dim::Dim2D)), false) => "image2d_t",
        (Some(Operand::Dim(spirv::Dim::Dim2D)), true) => "image2d_array_t",
        (Some(Operand::Dim(spirv::Dim::Dim3D)), _) => "image3d_t",
        _ => "image",
    }
}

/// Access qualifier of an image parameter type (`None` for everything else).
pub(super) fn image_access(md: &Mod, ty: Word) -> ArgAccess {
    let inst =
        md.m.types_global_values
            .iter()
            .find(|i| i.result_id == Some(ty) && i.class.opcode == S::TypeImage);
    match inst.and_then(|i| i.operands.get(7)) {
        Some(Operand::AccessQualifier(spirv::AccessQualifier::ReadOnly)) => ArgAccess::ReadOnly,
        Some(Operand::AccessQualifier(spirv::AccessQualifier::WriteOnly)) => ArgAccess::WriteOnly,
        Some(Operand::AccessQualifier(spirv::AccessQualifier::ReadWrite)) => ArgAccess::ReadWrite,
        // OpenCL C defaults an image argument to read_only.
        _ if inst.is_some() => ArgAccess::ReadOnly,
        _ => ArgAccess::None,
    }
}

pub(super) fn kernel_info(
    md: &mut Mod,
    f: &rspirv::dr::Function,
    fid: Word,
    fi: u32,
    name: &str,
    uses: &[FnUses],
    dbg: &[DbgInst],
) -> R<(KernelInfo, KernelCode)> {
    let mut args = vec![];
    let mut params = vec![];
    let dbg = debug_arg_types(md, name, dbg);
    for (i, p) in f.parameters.iter().enumerate() {
        let pid = result_id(p)?;
        let pty = result_ty(p)?;
        let t = md.ty(pty)?.clone();
        let pname = md.names.get(&pid).cloned().unwrap_or_default();
        let mut qual = 0u64;
        if md.param_attr(pid, spirv::FunctionParameterAttribute::NoAlias) {
            qual |= 2;
        }
        if md.has_deco(pid, Decoration::Volatile) {
            qual |= 4;
        }
        let (address, size, pointee_size, kind) = arg_binding(md, name, pid, pty, &mut qual)?;
        let (mut type_name, dq) = dbg
            .get(i)
            .cloned()
            .unwrap_or_else(|| (cl_type_name(md, pty), 0));
        if type_name.is_empty() {
            type_name = cl_type_name(md, pty);
        }
        qual |= dq;
        let is_sampler = matches!(t.k, TypeKind::Opaque("sampler_t"));
        args.push(KernelArg {
            name: pname.into(),
            type_name,
            address,
            access: image_access(md, pty),
            type_qualifier: qual,
            size,
            pointee_size,
            is_sampler,
            // Proven, where it holds, by the caller (`ParamWrites`).
            never_written: false,
        });
        params.push(kind);
    }
    let (reqd, hint, attributes) = work_group_sizes(md, fid)?;
    let (local_vars_used, local_mem_size, private_mem_size) = memory_used(md, fi, uses);
    Ok((
        KernelInfo {
            name: name.into(),
            args,
            reqd_work_group_size: reqd,
            work_group_size_hint: hint,
            attributes: attributes.join(" "),
            local_mem_size,
            private_mem_size,
        },
        KernelCode {
            func: fi,
            params,
            local_vars_used,
        },
    ))
}

/// How argument `pid` (of type `pty`) is passed: its address space, size, pointee size and
/// binding; adds `const` (1) to `qual` for `__constant` pointers.
fn arg_binding(
    md: &mut Mod,
    name: &str,
    pid: Word,
    pty: Word,
    qual: &mut u64,
) -> R<(ArgAddress, usize, u32, ParamKind)> {
    let t = md.ty(pty)?.clone();
    let pname = md.names.get(&pid).cloned().unwrap_or_default();
    Ok(match t.k {
        TypeKind::Ptr(sc, pointee) => {
            let ps = md.ty(pointee).map(|t| t.size).unwrap_or(0) as u32;
            match sc {
                StorageClass::CrossWorkgroup => (
                    ArgAddress::Global,
                    8,
                    ps,
                    ParamKind::Buffer { constant: false },
                ),
                StorageClass::UniformConstant => {
                    *qual |= 1;
                    (
                        ArgAddress::Constant,
                        8,
                        ps,
                        ParamKind::Buffer { constant: true },
                    )
                }
                StorageClass::Workgroup => (ArgAddress::Local, 0, ps, ParamKind::Local),
                StorageClass::Function
                    if md.param_attr(pid, spirv::FunctionParameterAttribute::ByVal) =>
                {
                    let pt = md.ty(pointee)?;
                    (
                        ArgAddress::Private,
                        pt.size as usize,
                        0,
                        ParamKind::ByVal {
                            size: pt.size as u32,
                            align: pt.align as u32,
                        },
                    )
                }
                sc => {
                    return Err(LoadError::Unsupported {
                        what: format!("kernel argument {pname} in storage class {sc:?}"),
                        function: Some(name.into()),
                    })
                }
            }
        }
        TypeKind::Opaque(n) if n.starts_with("image") => {
            (ArgAddress::Global, 8, 0, ParamKind::Image)
        }
        TypeKind::Opaque(_) => (ArgAddress::Private, 8, 0, ParamKind::Opaque),
        _ => {
            let l = md.layout(pty)?;
            (
                ArgAddress::Private,
                t.size as usize,
                0,
                ParamKind::Value { layout: l },
            )
        }
    })
}

/// `reqd_work_group_size` and `work_group_size_hint` of kernel `fid`, and its attribute text.
fn work_group_sizes(md: &Mod, fid: Word) -> R<([u64; 3], [u64; 3], Vec<String>)> {
    let mut reqd = [0u64; 3];
    let mut hint = [0u64; 3];
    let mut attributes = vec![];
    for em in &md.m.execution_modes {
        if id_at(em, 0)? != fid {
            continue;
        }
        let lits = |em: &Instruction| -> [u64; 3] {
            [
                lit_at(em, 2).unwrap_or(0),
                lit_at(em, 3).unwrap_or(0),
                lit_at(em, 4).unwrap_or(0),
            ]
        };
        match em.operands.get(1) {
            Some(Operand::ExecutionMode(spirv::ExecutionMode::LocalSize)) => {
                reqd = lits(em);
                attributes.push(format!(
                    "reqd_work_group_size({},{},{})",
                    reqd[0], reqd[1], reqd[2]
                ));
            }
            Some(Operand::ExecutionMode(spirv::ExecutionMode::LocalSizeHint)) => {
                hint = lits(em);
                attributes.push(format!(
                    "work_group_size_hint({},{},{})",
                    hint[0], hint[1], hint[2]
                ));
            }
            Some(Operand::ExecutionMode(spirv::ExecutionMode::VecTypeHint)) => {
                if let Some(name) = lit_at(em, 2).ok().and_then(vec_type_hint_name) {
                    attributes.push(format!("vec_type_hint({name})"));
                }
            }
            _ => {}
        }
    }
    Ok((reqd, hint, attributes))
}

/// The OpenCL C type of a `VecTypeHint` execution mode operand: the low 16 bits name the
/// component type (0 char, 1 short, 2 int, 3 long, 4 half, 5 float, 6 double), the high 16
/// bits the number of components (0 or 1: a scalar). SPIR-V keeps no signedness, so integer
/// types read as unsigned (`uchar4`), as the Khronos CTS spells them.
fn vec_type_hint_name(hint: u64) -> Option<String> {
    let component = match hint & 0xffff {
        0 => "uchar",
        1 => "ushort",
        2 => "uint",
        3 => "ulong",
        4 => "half",
        5 => "float",
        6 => "double",
        _ => return None,
    };
    match hint >> 16 {
        0 | 1 => Some(component.to_string()),
        n @ (2 | 3 | 4 | 8 | 16) => Some(format!("{component}{n}")),
        _ => None,
    }
}

/// Module `__local` variables the kernel (function `fi` and what it calls) uses, their
/// total size, and the private memory of its functions.
fn memory_used(md: &Mod, fi: u32, uses: &[FnUses]) -> (Vec<bool>, u64, u64) {
    // Module variables reachable from the kernel.
    let mut seen = HashSet::new();
    let mut stack = vec![fi];
    let mut vars = HashSet::new();
    let mut private_mem_size = 0;
    while let Some(x) = stack.pop() {
        if !seen.insert(x) {
            continue;
        }
        if let Some((v, c, p)) = uses.get(x as usize) {
            vars.extend(v.iter().copied());
            stack.extend(c.iter().copied());
            private_mem_size += p;
        }
    }
    let mut local_vars_used = vec![false; md.code.local_vars.len()];
    let mut local_mem_size = 0;
    for v in vars {
        if let Some((true, k)) = md.mod_vars.get(&v) {
            local_vars_used[*k as usize] = true;
            local_mem_size += md.code.local_vars[*k as usize].size;
        }
    }
    (local_vars_used, local_mem_size, private_mem_size)
}

/// Argument type names and const qualifiers from OpenCL.DebugInfo.100, when present:
/// the `DebugLocalVariable`s with an argument number whose scope is the kernel's
/// `DebugFunction`.
pub(super) fn debug_arg_types(md: &Mod, kernel: &str, insts: &[DbgInst]) -> Vec<(String, u64)> {
    let m = md.m;
    let Some(set) = m
        .ext_inst_imports
        .iter()
        .find_map(|i| match i.operands.first() {
            Some(Operand::LiteralString(s)) if s.starts_with("OpenCL.DebugInfo") => i.result_id,
            _ => None,
        })
    else {
        return vec![];
    };
    let dbg: HashMap<Word, &[u32]> = insts
        .iter()
        .filter(|i| i.w.first() == Some(&set))
        .map(|i| (i.id, i.w.as_slice()))
        .collect();
    // Instruction numbers of the OpenCL.DebugInfo.100 grammar; operand k is word k.
    const BASIC: u32 = 2;
    const POINTER: u32 = 3;
    const QUALIFIER: u32 = 4;
    const VECTOR: u32 = 6;
    const TYPEDEF: u32 = 7;
    const COMPOSITE: u32 = 10;
    const FUNCTION: u32 = 20;
    const LOCAL_VAR: u32 = 26;
    let w = |i: &[u32], k: usize| i.get(k).copied().unwrap_or(u32::MAX);
    let str_of = |id: Word| md.strings.get(&id).cloned().unwrap_or_default();
    let Some(func) = dbg
        .iter()
        .find_map(|(id, i)| (w(i, 1) == FUNCTION && str_of(w(i, 2)) == kernel).then_some(*id))
    else {
        return vec![];
    };
    fn name_of(
        dbg: &HashMap<Word, &[u32]>,
        md: &Mod,
        id: Word,
        depth: u32,
        qual: &mut u64,
    ) -> String {
        let Some(i) = dbg.get(&id) else {
            return "void".into();
        };
        if depth > 16 {
            return String::new();
        }
        let w = |k: usize| i.get(k).copied().unwrap_or(u32::MAX);
        let s = |k: usize| md.strings.get(&w(k)).cloned().unwrap_or_default();
        match w(1) {
            BASIC | TYPEDEF => s(2),
            COMPOSITE => {
                let n = s(2);
                if n.is_empty() {
                    "struct".into()
                } else {
                    format!("struct {n}")
                }
            }
            VECTOR => format!("{}{}", name_of(dbg, md, w(2), depth + 1, qual), w(3)),
            POINTER => {
                let mut inner = 0;
                let p = name_of(dbg, md, w(2), depth + 1, &mut inner);
                if depth == 0 {
                    *qual |= inner;
                }
                format!("{p}*")
            }
            QUALIFIER => {
                // ConstType, VolatileType, RestrictType
                *qual |= match w(3) {
                    0 => 1,
                    1 => 4,
                    2 => 2,
                    _ => 0,
                };
                name_of(dbg, md, w(2), depth + 1, qual)
            }
            _ => String::new(),
        }
    }
    let mut out: Vec<(u32, String, u64)> = vec![];
    for i in dbg.values() {
        // DebugLocalVariable: name, type, source, line, column, parent, flags, arg number.
        if w(i, 1) == LOCAL_VAR && w(i, 7) == func && i.len() > 9 {
            let mut q = 0;
            let n = name_of(&dbg, md, w(i, 3), 0, &mut q);
            out.push((w(i, 9), n, q));
        }
    }
    out.sort_by_key(|x| x.0);
    out.into_iter().map(|(_, n, q)| (n, q)).collect()
}

#[cfg(test)]
mod vec_type_hint_tests {
    use super::vec_type_hint_name;

    #[test]
    fn vec_type_hint_operands_name_opencl_c_types() {
        // What llvm-spirv-15 writes for vec_type_hint(double8), (uchar3), (float).
        assert_eq!(vec_type_hint_name(524_294).as_deref(), Some("double8"));
        assert_eq!(vec_type_hint_name(196_608).as_deref(), Some("uchar3"));
        assert_eq!(vec_type_hint_name(5).as_deref(), Some("float"));
        assert_eq!(
            vec_type_hint_name((16 << 16) | 3).as_deref(),
            Some("ulong16")
        );
        assert_eq!(vec_type_hint_name((5 << 16) | 2), None);
        assert_eq!(vec_type_hint_name(7), None);
    }
}
