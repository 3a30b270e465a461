//! Types and constants of a module as lowering sees them (`Mod`).

use super::*;

/// Module-level facts shared by every function's lowering.
pub(super) struct Mod<'m> {
    pub(super) m: &'m Module,
    pub(super) ptr_size: u64,
    pub(super) types: HashMap<Word, Ty>,
    /// Type of every id that has one.
    pub(super) id_ty: HashMap<Word, Word>,
    pub(super) consts: HashMap<Word, Vec<u64>>,
    pub(super) bad_consts: HashMap<Word, String>,
    /// Bytes of module-scope variables so far (see [`MAX_MODULE_DATA`]).
    pub(super) module_data: u64,
    /// OpSpecConstantOp result id → opcode, operand ids (see `load`).
    pub(super) spec_ops: HashMap<Word, Vec<u32>>,
    pub(super) builtins: HashMap<Word, Builtin>,
    /// Module variables: id → (is local, index).
    pub(super) mod_vars: HashMap<Word, (bool, u32)>,
    pub(super) names: HashMap<Word, String>,
    pub(super) decos: HashMap<Word, Vec<(Decoration, Vec<Operand>)>>,
    pub(super) opencl_std: HashSet<Word>,
    pub(super) strings: HashMap<Word, String>,
    pub(super) func_index: HashMap<Word, u32>,
    pub(super) layouts: HashMap<Word, u32>,
    pub(super) code: Code,
    pub(super) locs: Vec<Option<SourceLoc>>,
    /// Alignment each instruction's memory access requires, per instruction (see
    /// [`crate::Program::alignment`]): log2 + 1, 0 for none.
    pub(super) aligns: Vec<u8>,
    /// Instructions that store back what their work-item loaded through the same pointer
    /// (see [`crate::Program::stores_back`]), in order.
    pub(super) stores_back: Vec<u32>,
    pub(super) files: HashMap<Word, Arc<str>>,
    pub(super) inst_counter: u32,
}

impl<'m> Mod<'m> {
    pub(super) fn ty(&self, id: Word) -> R<&Ty> {
        self.types
            .get(&id)
            .ok_or_else(|| malformed(format!("%{id} is not a type")))
    }
    /// The type id of value `id`.
    pub(super) fn type_id_of(&self, id: Word) -> R<Word> {
        self.id_ty
            .get(&id)
            .copied()
            .ok_or_else(|| malformed(format!("%{id} has no type")))
    }
    pub(super) fn ty_of(&self, id: Word) -> R<&Ty> {
        self.ty(self.type_id_of(id)?)
    }
    pub(super) fn has_deco(&self, id: Word, d: Decoration) -> bool {
        self.decos
            .get(&id)
            .is_some_and(|v| v.iter().any(|(x, _)| *x == d))
    }
    pub(super) fn deco_ops(&self, id: Word, d: Decoration) -> Option<&[Operand]> {
        self.decos
            .get(&id)?
            .iter()
            .find(|(x, _)| *x == d)
            .map(|(_, o)| o.as_slice())
    }
    pub(super) fn param_attr(&self, id: Word, a: spirv::FunctionParameterAttribute) -> bool {
        self.decos.get(&id).is_some_and(|v| {
            v.iter().any(|(x, o)| {
                *x == Decoration::FuncParamAttr
                    && matches!(o.first(), Some(Operand::FunctionParameterAttribute(y)) if *y == a)
            })
        })
    }

    /// Scalar element of a scalar or vector type: (elem, bits, lanes).
    pub(super) fn scalar(&self, ty: Word) -> R<(Elem, u8, u32)> {
        let t = self.ty(ty)?;
        Ok(match t.k {
            TypeKind::Bool => (Elem::Bool, 1, 1),
            TypeKind::Int(w) => (Elem::Int(w), w, 1),
            TypeKind::Float(w) => (Elem::Float(w), w, 1),
            TypeKind::Ptr(..) | TypeKind::Opaque(_) => (Elem::Int(64), 64, 1),
            TypeKind::Vector(e, n) => {
                let (el, w, _) = self.scalar(e)?;
                (el, w, n)
            }
            _ => {
                return Err(LoadError::Unsupported {
                    what: format!("operation on non-scalar type {:?}", t.k),
                    function: None,
                })
            }
        })
    }

    pub(super) fn make_type(&self, inst: &Instruction) -> R<Ty> {
        let mut t = self.make_type_shallow(inst)?;
        let inner: &[Word] = match &t.k {
            TypeKind::Vector(e, _) | TypeKind::Array(e, _) => std::slice::from_ref(e),
            TypeKind::Struct(ms) => ms,
            _ => &[],
        };
        let mut depth = 0;
        for m in inner {
            depth = depth.max(self.ty(*m)?.depth);
        }
        t.depth = depth + 1;
        if t.depth > MAX_TYPE_DEPTH {
            return Err(LoadError::Unsupported {
                what: format!("types nested more than {MAX_TYPE_DEPTH} deep"),
                function: None,
            });
        }
        Ok(t)
    }

    fn make_type_shallow(&self, inst: &Instruction) -> R<Ty> {
        let simple = |k, size: u64| Ty {
            k,
            size,
            align: size.max(1),
            lanes: 1,
            offsets: vec![],
            depth: 1,
        };
        Ok(match inst.class.opcode {
            S::TypeVoid => Ty {
                k: TypeKind::Void,
                size: 0,
                align: 1,
                lanes: 0,
                offsets: vec![],
                depth: 1,
            },
            S::TypeBool => simple(TypeKind::Bool, 1),
            S::TypeInt => {
                let w = lit_at(inst, 0)?;
                if !matches!(w, 8 | 16 | 32 | 64) {
                    return Err(LoadError::Unsupported {
                        what: format!("integer width {w}"),
                        function: None,
                    });
                }
                simple(TypeKind::Int(w as u8), w / 8)
            }
            S::TypeFloat => {
                let w = lit_at(inst, 0)?;
                if !matches!(w, 16 | 32 | 64) {
                    return Err(LoadError::Unsupported {
                        what: format!("float width {w}"),
                        function: None,
                    });
                }
                simple(TypeKind::Float(w as u8), w / 8)
            }
            S::TypeVector => {
                let e = id_at(inst, 0)?;
                let n = lit_at(inst, 1)?;
                if !matches!(n, 2 | 3 | 4 | 8 | 16) {
                    return Err(malformed(format!("vector of {n} components")));
                }
                let et = self.ty(e)?;
                // A vector's components are scalars (SPIR-V 2.16.1): the register lanes and
                // memory leaves of every vector op assume one component fits one lane.
                if !matches!(
                    et.k,
                    TypeKind::Bool | TypeKind::Int(_) | TypeKind::Float(_) | TypeKind::Ptr(..)
                ) {
                    return Err(malformed("vector of a non-scalar component type"));
                }
                let es = et.size;
                let size = es * if n == 3 { 4 } else { n };
                Ty {
                    k: TypeKind::Vector(e, n as u32),
                    size,
                    align: size.max(1),
                    lanes: n,
                    offsets: vec![],
                    depth: 1,
                }
            }
            S::TypeArray => self.array_type(inst)?,
            S::TypeRuntimeArray => {
                let e = id_at(inst, 0)?;
                let et = self.ty(e)?;
                Ty {
                    k: TypeKind::Array(e, 0),
                    size: 0,
                    align: et.align,
                    lanes: 0,
                    offsets: vec![],
                    depth: 1,
                }
            }
            S::TypeStruct => self.struct_type(inst)?,
            S::TypePointer => {
                let sc = match inst.operands.first() {
                    Some(Operand::StorageClass(s)) => *s,
                    _ => return Err(malformed("pointer without storage class")),
                };
                let pointee = id_at(inst, 1)?;
                simple(TypeKind::Ptr(sc, pointee), self.ptr_size)
            }
            S::TypeFunction => {
                let ret = id_at(inst, 0)?;
                let mut ps = vec![];
                for i in 1..inst.operands.len() {
                    ps.push(id_at(inst, i)?);
                }
                let _ = ret;
                Ty {
                    k: TypeKind::Func(ps),
                    size: 0,
                    align: 1,
                    lanes: 0,
                    offsets: vec![],
                    depth: 1,
                }
            }
            S::TypeEvent => simple(TypeKind::Opaque("event_t"), 8),
            S::TypeSampler => simple(TypeKind::Opaque("sampler_t"), 8),
            S::TypeOpaque => simple(TypeKind::Opaque("opaque"), 0),
            S::TypeImage => simple(TypeKind::Opaque(image_type_name(inst)), 8),
            S::TypeSampledImage => simple(TypeKind::Opaque("sampled_image"), 8),
            S::TypeDeviceEvent | S::TypeReserveId | S::TypeQueue | S::TypePipe => {
                simple(TypeKind::Opaque("opaque"), 8)
            }
            op => {
                return Err(LoadError::Unsupported {
                    what: format!("type Op{op:?}"),
                    function: None,
                })
            }
        })
    }

    /// OpTypeArray: a constant length of elements, at most 2^40 bytes.
    fn array_type(&self, inst: &Instruction) -> R<Ty> {
        let e = id_at(inst, 0)?;
        let len_id = id_at(inst, 1)?;
        let len = *self
            .consts
            .get(&len_id)
            .and_then(|v| v.first())
            .ok_or_else(|| malformed("array length is not a constant"))?;
        let et = self.ty(e)?;
        let size = et
            .size
            .checked_mul(len)
            .filter(|s| *s < 1 << 40)
            .ok_or_else(|| malformed("array too large"))?;
        Ok(Ty {
            k: TypeKind::Array(e, len),
            size,
            align: et.align,
            lanes: et.lanes.saturating_mul(len),
            offsets: vec![],
            depth: 1,
        })
    }

    /// OpTypeStruct: members at their natural alignment (none when `CPacked`).
    fn struct_type(&self, inst: &Instruction) -> R<Ty> {
        let id = result_id(inst)?;
        let packed = self.has_deco(id, Decoration::CPacked);
        let mut members = vec![];
        let mut offsets = vec![];
        let (mut off, mut align, mut lanes) = (0u64, 1u64, 0u64);
        for i in 0..inst.operands.len() {
            let m = id_at(inst, i)?;
            let mt = self.ty(m)?;
            let a = if packed { 1 } else { mt.align.max(1) };
            off = off.div_ceil(a) * a;
            offsets.push(off);
            off = off.saturating_add(mt.size);
            align = align.max(a);
            lanes = lanes.saturating_add(mt.lanes);
            members.push(m);
        }
        Ok(Ty {
            k: TypeKind::Struct(members),
            size: off.div_ceil(align) * align,
            align,
            lanes,
            offsets,
            depth: 1,
        })
    }

    /// Memory leaves of a type, in register-lane order (at most [`MAX_LANES`]).
    pub(super) fn leaves(&self, ty: Word, base: u64, out: &mut Vec<Leaf>) -> R<()> {
        if out.len() as u64 > MAX_LANES {
            return Err(too_many_lanes());
        }
        let t = self.ty(ty)?;
        let off32 = |o: u64| u32::try_from(o).map_err(|_| malformed("offset too large"));
        match &t.k {
            TypeKind::Vector(e, n) => {
                let es = self.ty(*e)?.size;
                for i in 0..*n as u64 {
                    out.push(Leaf {
                        off: off32(base + i * es)?,
                        size: es as u8,
                    });
                }
            }
            TypeKind::Array(e, n) => {
                // One element's leaves, repeated: an array of empty elements (a zero-size
                // struct, say) adds none, and must not take one call per element to say so.
                let es = self.ty(*e)?.size;
                let mut one = Vec::new();
                self.leaves(*e, 0, &mut one)?;
                let total = (one.len() as u64).saturating_mul(*n);
                if (out.len() as u64).saturating_add(total) > MAX_LANES {
                    return Err(too_many_lanes());
                }
                for i in 0..if one.is_empty() { 0 } else { *n } {
                    let at = base + i * es;
                    for l in &one {
                        out.push(Leaf {
                            off: off32(at + l.off as u64)?,
                            size: l.size,
                        });
                    }
                }
            }
            TypeKind::Struct(ms) => {
                for (m, o) in ms.iter().zip(t.offsets.iter()) {
                    self.leaves(*m, base + o, out)?;
                }
            }
            TypeKind::Void | TypeKind::Func(..) => {}
            _ => out.push(Leaf {
                off: off32(base)?,
                size: t.size.min(8) as u8,
            }),
        }
        Ok(())
    }

    pub(super) fn layout(&mut self, ty: Word) -> R<u32> {
        if let Some(l) = self.layouts.get(&ty) {
            return Ok(*l);
        }
        let mut v = vec![];
        self.leaves(ty, 0, &mut v)?;
        let i = self.code.layouts.len() as u32;
        self.code.layouts.push(v);
        self.layouts.insert(ty, i);
        Ok(i)
    }

    pub(super) fn const_lanes(&self, inst: &Instruction, ty: Word) -> R<Vec<u64>> {
        let t = self.ty(ty)?;
        Ok(match inst.class.opcode {
            S::Constant | S::SpecConstant => {
                let v = lit_at(inst, 0)?;
                let w = match t.k {
                    TypeKind::Int(w) | TypeKind::Float(w) => w,
                    _ => 64,
                };
                vec![v & mask(w)]
            }
            S::ConstantSampler => {
                let addressing = match inst.operands.first() {
                    Some(Operand::SamplerAddressingMode(a)) => *a as u32,
                    _ => return Err(malformed("OpConstantSampler without addressing mode")),
                };
                let normalized = lit_at(inst, 1)? != 0;
                let linear = matches!(
                    inst.operands.get(2),
                    Some(Operand::SamplerFilterMode(spirv::SamplerFilterMode::Linear))
                );
                vec![crate::image::sampler::from_spirv(addressing, normalized, linear) as u64]
            }
            S::ConstantTrue | S::SpecConstantTrue => vec![1],
            S::ConstantFalse | S::SpecConstantFalse => vec![0],
            S::Undef
                if inst
                    .result_id
                    .is_some_and(|id| self.spec_ops.contains_key(&id)) =>
            {
                let id = inst.result_id.unwrap_or_default();
                self.spec_constant_op(self.spec_ops.get(&id).map_or(&[][..], Vec::as_slice))?
            }
            S::ConstantNull | S::Undef => {
                if t.lanes > MAX_LANES {
                    return Err(LoadError::Unsupported {
                        what: "constant too large".into(),
                        function: None,
                    });
                }
                vec![0; t.lanes as usize]
            }
            S::ConstantComposite | S::SpecConstantComposite => {
                let mut v = vec![];
                for i in 0..inst.operands.len() {
                    let c = id_at(inst, i)?;
                    let l = self.consts.get(&c).ok_or_else(|| {
                        malformed(format!("constant %{c} not defined before use"))
                    })?;
                    v.extend_from_slice(l);
                }
                v
            }
            op => {
                return Err(LoadError::Unsupported {
                    what: format!("constant Op{op:?}"),
                    function: None,
                })
            }
        })
    }

    /// The value of an `OpSpecConstantOp` that llvm-spirv emits for program-scope data
    /// initialised with addresses (`global int *p = &table[1];`, OpenCL C 2.0): pointer casts
    /// and access chains over a module variable's address, folded to a pointer constant.
    /// `words`: the opcode, then the operand ids.
    fn spec_constant_op(&self, words: &[u32]) -> R<Vec<u64>> {
        let op = words
            .first()
            .and_then(|&w| S::from_u32(w))
            .ok_or_else(|| malformed("OpSpecConstantOp without a known opcode"))?;
        let id = |i: usize| -> R<Word> {
            words
                .get(i)
                .copied()
                .ok_or_else(|| malformed(format!("OpSpecConstantOp {op:?} lacks operand {i}")))
        };
        let lane = |i: usize| -> R<u64> {
            let c = id(i)?;
            match self.consts.get(&c).map(Vec::as_slice) {
                Some([v]) => Ok(*v),
                Some(_) => Err(malformed(format!("constant %{c} is not a scalar"))),
                None => Err(LoadError::Unsupported {
                    what: format!("constant %{c} (operand of OpSpecConstantOp {op:?})"),
                    function: None,
                }),
            }
        };
        Ok(vec![match op {
            S::Bitcast
            | S::PtrCastToGeneric
            | S::GenericCastToPtr
            | S::ConvertPtrToU
            | S::ConvertUToPtr => lane(1)?,
            S::PtrAccessChain
            | S::InBoundsPtrAccessChain
            | S::AccessChain
            | S::InBoundsAccessChain => {
                let base = id(1)?;
                let mut ty = match self.id_ty.get(&base).map(|t| self.ty(*t)) {
                    Some(Ok(Ty {
                        k: TypeKind::Ptr(_, p),
                        ..
                    })) => *p,
                    _ => return Err(malformed("access chain over a non-pointer constant")),
                };
                let indices = (2..words.len())
                    .map(|i| {
                        let c = id(i)?;
                        let w = match self.id_ty.get(&c).map(|t| self.ty(*t)) {
                            Some(Ok(Ty {
                                k: TypeKind::Int(w),
                                ..
                            })) => *w,
                            _ => 64,
                        };
                        Ok(sext(lane(i)?, w))
                    })
                    .collect::<R<Vec<i64>>>()?;
                let mut off = 0i64;
                let mut rest = indices.as_slice();
                if matches!(op, S::PtrAccessChain | S::InBoundsPtrAccessChain) {
                    if let Some((&e, r)) = rest.split_first() {
                        off = off.wrapping_add(e.wrapping_mul(self.ty(ty)?.size as i64));
                        rest = r;
                    }
                }
                for &i in rest {
                    let t = self.ty(ty)?;
                    let (step, next) = match &t.k {
                        TypeKind::Array(e, _) | TypeKind::Vector(e, _) => {
                            (i.wrapping_mul(self.ty(*e)?.size as i64), *e)
                        }
                        TypeKind::Struct(ms) => {
                            let m = usize::try_from(i)
                                .ok()
                                .filter(|&m| m < ms.len())
                                .ok_or_else(|| malformed("struct index out of range"))?;
                            (t.offsets.get(m).copied().unwrap_or(0) as i64, ms[m])
                        }
                        _ => return Err(malformed("access chain into a scalar")),
                    };
                    off = off.wrapping_add(step);
                    ty = next;
                }
                lane(1)?.wrapping_add(off as u64)
            }
            op => {
                return Err(LoadError::Unsupported {
                    what: format!("OpSpecConstantOp {op:?}"),
                    function: None,
                })
            }
        }])
    }

    pub(super) fn var_init_bytes(&mut self, pointee: Word, init: Option<Word>) -> R<Vec<u8>> {
        let size = self.ty(pointee)?.size;
        self.module_data = self.module_data.saturating_add(size);
        if self.module_data > MAX_MODULE_DATA {
            return Err(LoadError::Unsupported {
                what: format!(
                    "module-scope variables of more than {} MiB in all",
                    MAX_MODULE_DATA >> 20
                ),
                function: None,
            });
        }
        let mut bytes = vec![0u8; size as usize];
        if let Some(init) = init {
            let lanes = self
                .consts
                .get(&init)
                .ok_or_else(|| LoadError::Unsupported {
                    what: format!("initializer %{init} of a module variable is not a constant"),
                    function: None,
                })?
                .clone();
            let mut leaves = vec![];
            self.leaves(pointee, 0, &mut leaves)?;
            for (leaf, v) in leaves.iter().zip(lanes.iter()) {
                let b = v.to_le_bytes();
                let o = leaf.off as usize;
                if let Some(dst) = bytes.get_mut(o..o + leaf.size as usize) {
                    dst.copy_from_slice(&b[..leaf.size as usize]);
                }
            }
        }
        Ok(bytes)
    }
}

fn too_many_lanes() -> LoadError {
    LoadError::Unsupported {
        what: "value with too many lanes".into(),
        function: None,
    }
}
