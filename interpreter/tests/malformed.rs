//! Malformed SPIR-V must give an error, never a panic or a hang.
mod common;
use common::*;
use shadowcl_interpreter::*;

const SRC: &str = r#"
typedef struct { int a; float b; } S;
__kernel void k(__global float *a, __local int *l, S s, int n) {
    int i = get_global_id(0);
    l[get_local_id(0)] = i;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < n; j++) a[i] += l[j % 4] * s.b + sqrt((float)j);
    printf("%d\n", i);
}"#;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn try_load_and_run(bytes: &[u8]) {
    try_load_and_run_with(bytes, &NoObserver)
}

fn try_load_and_run_with<O: Observer>(bytes: &[u8], observer: &O) {
    // Whatever loads must also run without panicking (it may fail or fault).
    if let Ok(p) = Program::load(bytes) {
        for k in p.kernels().to_vec() {
            let args = k
                .args
                .iter()
                .map(|a| match a.address {
                    ArgAddress::Global | ArgAddress::Constant => {
                        let b = Buffer::new(64).unwrap();
                        ArgValue::Buffer {
                            buffer: b,
                            offset: 0,
                            size: 64,
                        }
                    }
                    ArgAddress::Local => ArgValue::Local(64),
                    ArgAddress::Private => ArgValue::Bytes(vec![3; a.size.max(8)]),
                })
                .collect();
            let l = launch(&k.name, 1, [4, 1, 1], [4, 1, 1], args);
            let _ = Device::new(1).with_instruction_limit(200_000).run(
                &p,
                &l,
                &Schedule::default(),
                observer,
            );
        }
    }
}

#[test]
fn truncated_modules_are_errors() {
    let spv = compile(SRC, "-O0");
    assert!(Program::load(&spv).is_ok());
    for cut in [
        0,
        3,
        4,
        19,
        20,
        24,
        spv.len() / 3,
        spv.len() / 2,
        spv.len() - 4,
        spv.len() - 1,
    ] {
        let r = Program::load(&spv[..cut]);
        assert!(r.is_err(), "cut at {cut} loaded");
    }
}

#[test]
fn random_words_are_errors() {
    let mut rng = Rng(7);
    for len in [5usize, 6, 20, 100, 1000] {
        for _ in 0..20 {
            let mut w: Vec<u8> = (0..len * 4).map(|_| rng.next() as u8).collect();
            // Valid magic so the parser goes further.
            w[..4].copy_from_slice(&0x0723_0203u32.to_le_bytes());
            assert!(Program::load(&w).is_err());
        }
    }
}

#[test]
fn bit_flipped_modules_never_panic() {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for opt in ["-O0", "-O2"] {
        let spv = compile(SRC, opt);
        let mut rng = Rng(42);
        for _ in 0..150 {
            let mut b = spv.clone();
            for _ in 0..1 + rng.next() % 3 {
                let i = (rng.next() as usize) % b.len();
                b[i] ^= 1 << (rng.next() % 8);
            }
            let r = std::panic::catch_unwind(|| try_load_and_run(&b));
            assert!(r.is_ok(), "panic on a bit-flipped module ({opt})");
        }
    }
    std::panic::set_hook(hook);
}

/// Wants every atomic's and fence's order and scope, and ignores them.
struct WantsSync;

impl Observer for WantsSync {
    type Group = ();
    fn group_start(&self, _g: &GroupInfo) {}
    fn wants_sync(&self) -> bool {
        true
    }
}

/// Atomics and fences whose scope and semantics are constants or run-time values (a
/// helper llvm-spirv adds with a linkage type of its own): whatever they become, the
/// lowering refuses them or the executor reports them.
#[test]
fn bit_flipped_atomics_never_panic() {
    const SYNC: &str = r#"
__attribute__((noinline)) int cas(volatile global atomic_int *p, int c, memory_scope s) {
  atomic_compare_exchange_strong_explicit(p, &c, c + 1, memory_order_acq_rel,
                                          memory_order_acquire, s);
  return c;
}
__kernel void k(volatile __global atomic_int *a, __global int *o) {
  local atomic_int l;
  atomic_store_explicit(&l, 1, memory_order_release, memory_scope_work_group);
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device);
  o[0] = cas(a, 0, memory_scope_device) + atomic_fetch_add(&l, 2);
  mem_fence(CLK_LOCAL_MEM_FENCE);
}"#;
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for opt in ["-O0", "-O2"] {
        let spv = compile_std(SYNC, opt, "CL3.0");
        assert!(Program::load(&spv).is_ok(), "{opt}");
        let mut rng = Rng(43);
        for _ in 0..150 {
            let mut b = spv.clone();
            for _ in 0..1 + rng.next() % 3 {
                let i = (rng.next() as usize) % b.len();
                b[i] ^= 1 << (rng.next() % 8);
            }
            let r = std::panic::catch_unwind(|| try_load_and_run_with(&b, &WantsSync));
            assert!(r.is_ok(), "panic on a bit-flipped module ({opt})");
        }
    }
    std::panic::set_hook(hook);
}

#[test]
fn unsupported_constructs_are_named() {
    let spv = compile("__kernel void k(__global int *a) { a[0] = 1; }", "-O0");
    // Replace `OpCapability Addresses` (the first capability) with `Shader`.
    let words: Vec<u32> = spv
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let pos = words.iter().position(|w| *w == (2 << 16 | 17)).unwrap();
    let mut w2 = words.clone();
    w2[pos + 1] = 1; // Shader
    let bytes: Vec<u8> = w2.iter().flat_map(|w| w.to_le_bytes()).collect();
    match Program::load(&bytes) {
        Err(LoadError::Unsupported { what, .. }) => assert!(what.contains("Shader"), "{what}"),
        other => panic!("expected unsupported capability, got {other:?}"),
    }
}

/// Edits the module as rspirv data: `f` may change its types and values.
fn edited(spv: &[u8], f: impl FnOnce(&mut rspirv::dr::Module)) -> Vec<u8> {
    use rspirv::binary::Assemble;
    let mut m = rspirv::dr::load_bytes(spv).expect("a valid module");
    f(&mut m);
    m.assemble().iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Found by the fuzz smoke test: a pointer type that points at itself made the argument
/// type name recurse until the stack overflowed.
#[test]
fn pointer_type_that_points_at_itself_is_not_followed_forever() {
    let spv = compile_plain("__kernel void k(__global int *a) { a[0] = 1; }", "-O0");
    let bytes = edited(&spv, |m| {
        for t in &mut m.types_global_values {
            if t.class.opcode == spirv::Op::TypePointer {
                let own = t.result_id.expect("pointer type has an id");
                t.operands[1] = rspirv::dr::Operand::IdRef(own);
            }
        }
    });
    // Loading may fail or succeed (the pointee is never dereferenced): it must return.
    if let Ok(p) = Program::load(&bytes) {
        assert!(p.kernels()[0].args[0].type_name.ends_with('*'));
    }
}

/// Types nested deeper than any OpenCL C program nests them are refused, so no walk over a
/// type can exhaust the stack.
#[test]
fn deeply_nested_types_are_refused() {
    let spv = compile_plain("__kernel void k(__global int *a) { a[0] = 1; }", "-O0");
    let bytes = edited(&spv, |m| {
        use rspirv::dr::{Instruction, Operand};
        let int = m
            .types_global_values
            .iter()
            .find(|t| t.class.opcode == spirv::Op::TypeInt)
            .and_then(|t| t.result_id)
            .expect("an int type");
        let mut next = m.header.as_ref().map(|h| h.bound).unwrap_or(1000);
        let mut inner = int;
        for _ in 0..10_000 {
            let id = next;
            next += 1;
            m.types_global_values.push(Instruction::new(
                spirv::Op::TypeStruct,
                None,
                Some(id),
                vec![Operand::IdRef(inner)],
            ));
            inner = id;
        }
        if let Some(h) = m.header.as_mut() {
            h.bound = next;
        }
    });
    match Program::load(&bytes) {
        Err(LoadError::Unsupported { what, .. }) => assert!(what.contains("nested"), "{what}"),
        other => panic!("expected nesting refused, got {:?}", other.map(|_| ())),
    }
}

/// Found by the launch fuzz campaign: an id defined twice let a type name itself through
/// the types between (a vector of a vector of the redefined id), and `scalar` recursed until
/// the stack overflowed. Every id of the module's types and values is defined once.
/// Found by the launch fuzz target (stop 27): a vector whose components were vectors made a
/// by-value argument's memory leaf 32 bytes wide, and binding the argument copied it into an
/// 8-byte register lane (a panic). A vector's components must be scalars.
#[test]
fn a_vector_of_vectors_is_refused() {
    let spv = compile_plain("__kernel void k(__global int *a) { a[0] = 1; }", "-O0");
    let bytes = edited(&spv, |m| {
        use rspirv::dr::{Instruction, Operand};
        let int_id = m
            .types_global_values
            .iter()
            .find(|t| t.class.opcode == spirv::Op::TypeInt)
            .and_then(|t| t.result_id)
            .expect("an int type");
        let bound = m.header.as_ref().map(|h| h.bound).unwrap_or(1000);
        let (v4, v4v4) = (bound, bound + 1);
        m.types_global_values.push(Instruction::new(
            spirv::Op::TypeVector,
            None,
            Some(v4),
            vec![Operand::IdRef(int_id), Operand::LiteralBit32(4)],
        ));
        m.types_global_values.push(Instruction::new(
            spirv::Op::TypeVector,
            None,
            Some(v4v4),
            vec![Operand::IdRef(v4), Operand::LiteralBit32(2)],
        ));
        if let Some(h) = m.header.as_mut() {
            h.bound = bound + 2;
        }
    });
    match Program::load(&bytes) {
        Err(LoadError::Malformed(what)) => assert!(what.contains("non-scalar"), "{what}"),
        other => panic!("expected a malformed module, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn a_type_defined_twice_is_refused() {
    let spv = compile_plain("__kernel void k(__global int *a) { a[0] = 1; }", "-O0");
    let bytes = edited(&spv, |m| {
        use rspirv::dr::{Instruction, Operand};
        let int = m
            .types_global_values
            .iter()
            .position(|t| t.class.opcode == spirv::Op::TypeInt)
            .expect("an int type");
        let int_id = m.types_global_values[int].result_id.expect("an id");
        let vec = m.header.as_ref().map(|h| h.bound).unwrap_or(1000);
        // %vec = vector of %int, then %int redefined as a vector of %vec.
        m.types_global_values.push(Instruction::new(
            spirv::Op::TypeVector,
            None,
            Some(vec),
            vec![Operand::IdRef(int_id), Operand::LiteralBit32(2)],
        ));
        m.types_global_values.push(Instruction::new(
            spirv::Op::TypeVector,
            None,
            Some(int_id),
            vec![Operand::IdRef(vec), Operand::LiteralBit32(2)],
        ));
        if let Some(h) = m.header.as_mut() {
            h.bound = vec + 1;
        }
    });
    match Program::load(&bytes) {
        Err(LoadError::Malformed(what)) => assert!(what.contains("defined twice"), "{what}"),
        other => panic!("expected a malformed module, got {:?}", other.map(|_| ())),
    }
}

/// An atomic's or a fence's scope and semantics operands must be ids of values: anything
/// else is a load error.
#[test]
fn atomics_and_fences_need_scope_and_semantics_values() {
    let spv = compile_plain(
        "__kernel void k(volatile __global int *a) { atomic_inc(a); mem_fence(CLK_GLOBAL_MEM_FENCE); }",
        "-O2",
    );
    assert!(Program::load(&spv).is_ok());
    use rspirv::dr::Operand;
    type Edit = fn(&mut Vec<Operand>, u32);
    let edits: [(spirv::Op, Edit, &str); 4] = [
        // A scope id nothing defines.
        (
            spirv::Op::AtomicIIncrement,
            |ops, bound| ops[1] = Operand::IdScope(bound),
            "never defined",
        ),
        // Semantics (read back as an id: a literal has no other words).
        (
            spirv::Op::AtomicIIncrement,
            |ops, bound| ops[2] = Operand::LiteralBit32(bound + 2),
            "never defined",
        ),
        // A fence without its semantics.
        (
            spirv::Op::MemoryBarrier,
            |ops, _| ops.truncate(1),
            "operands",
        ),
        (
            spirv::Op::MemoryBarrier,
            |ops, bound| ops[1] = Operand::IdMemorySemantics(bound + 1),
            "never defined",
        ),
    ];
    for (op, edit, error) in edits {
        let bytes = edited(&spv, |m| {
            let bound = m.header.as_ref().map(|h| h.bound).unwrap_or(1000);
            let inst = m
                .functions
                .iter_mut()
                .flat_map(|f| &mut f.blocks)
                .flat_map(|b| &mut b.instructions)
                .find(|i| i.class.opcode == op)
                .expect("the instruction");
            edit(&mut inst.operands, bound);
        });
        match Program::load(&bytes) {
            Err(LoadError::Malformed(what)) => assert!(what.contains(error), "{op:?}: {what}"),
            other => panic!("{op:?}: expected a malformed module, got {other:?}"),
        }
    }
}
