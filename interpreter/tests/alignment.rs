//! `Program::alignments`: what each access must be aligned to, as the checkers see it
//! (misaligned accesses are undefined behaviour, OpenCL C 6.3).

mod common;
use common::*;
use shadowcl_interpreter::*;
use std::sync::Mutex;

/// (offset of the accessed value's start, size, kind, required alignment) of every global
/// access, in order.
struct Aligns<'p> {
    program: &'p Program,
    seen: Mutex<Vec<(u64, u32, AccessKind, u32)>>,
}

impl Observer for Aligns<'_> {
    type Group = ();
    fn group_start(&self, _group: &GroupInfo) {}
    fn access(&self, _g: &mut (), a: &Access<'_>) {
        if a.space == AddressSpace::Global {
            let align = self.program.alignments().of(a.inst);
            self.seen
                .lock()
                .unwrap()
                .push((value_offset(a), a.size, a.kind, align));
        }
    }
}

/// Where the value an access is part of starts (a vector's elements are `size` apart).
fn value_offset(a: &Access<'_>) -> u64 {
    a.offset - a.component as u64 * a.size as u64
}

/// (start, kind, required alignment) of the accesses in `seen` whose value's start is not
/// aligned, a value accessed in parts once.
fn misaligned(seen: &[(u64, u32, AccessKind, u32)]) -> Vec<(u64, AccessKind, u32)> {
    let mut found: Vec<(u64, AccessKind, u32)> = seen
        .iter()
        .filter(|s| s.0 % s.3 as u64 != 0)
        .map(|&(start, _, kind, align)| (start, kind, align))
        .collect();
    found.dedup();
    found
}

fn accesses(src: &str, opt: &str, args: Vec<ArgValue>) -> Vec<(u64, u32, AccessKind, u32)> {
    accesses_of(src, opt, 1, 0, args)
}

/// [`accesses`] of `items` work-items in one group, each a turn of `quantum` instructions.
fn accesses_of(
    src: &str,
    opt: &str,
    items: u64,
    quantum: u32,
    args: Vec<ArgValue>,
) -> Vec<(u64, u32, AccessKind, u32)> {
    let p = program(src, opt);
    let obs = Aligns {
        program: &p,
        seen: Mutex::new(Vec::new()),
    };
    let l = launch("k", 1, [items, 1, 1], [items, 1, 1], args);
    let schedule = Schedule {
        quantum,
        ..Schedule::default()
    };
    Device::new(0)
        .run(&p, &l, &schedule, &obs)
        .unwrap_or_else(|e| panic!("{opt}: {e}"));
    obs.seen.into_inner().unwrap()
}

#[test]
fn loads_and_stores_need_their_types_alignment() {
    use AccessKind::*;
    let src = r#"
    __kernel void k(__global int *in, __global int *out) {
        __global int *p = (__global int *)((__global char *)in + 2);
        out[0] = *p;                                       // int at byte 2: needs 4
        out[1] = ((__global char *)in)[3];                 // char: needs nothing
        out[2] = (int)((__global short *)in)[1];           // short at byte 2: fine
        out[3] = atomic_add(in + 1, 1);                    // atomic: natural alignment
    }"#;
    for opt in ["-O0", "-O2"] {
        let (bi, bo) = (buf_i32(&[1, 2, 3, 4]), buf_i32(&[0; 4]));
        let seen = accesses(src, opt, vec![arg(&bi), arg(&bo)]);
        let find = |off, size, kind| {
            seen.iter()
                .find(|s| (s.0, s.1, s.2) == (off, size, kind))
                .unwrap_or_else(|| panic!("{opt}: no {size}-byte {kind:?} at {off}: {seen:?}"))
                .3
        };
        assert_eq!(find(2, 4, Read), 4, "{opt}");
        assert_eq!(find(3, 1, Read), 1, "{opt}");
        assert_eq!(find(2, 2, Read), 2, "{opt}");
        assert_eq!(find(4, 4, Atomic), 4, "{opt}");
        assert_eq!(find(0, 4, Write), 4, "{opt}");
        // Every access this kernel makes but the first is aligned.
        let misaligned: Vec<_> = seen.iter().filter(|s| s.0 % s.3 as u64 != 0).collect();
        assert_eq!(misaligned, [&(2, 4, Read, 4)], "{opt}");
    }
}

#[test]
fn packed_fields_vectors_and_vload_need_only_what_they_declare() {
    let src = r#"
    struct __attribute__((packed)) rec { char tag; int value; };
    __kernel void k(__global struct rec *r, __global float *f, __global float *out) {
        out[0] = (float)r->value;          // packed: byte 1, declared align 1
        float4 v = vload4(0, f + 1);       // vload: element alignment only (OpenCL C 6.15.11)
        float4 w = ((__global float4 *)f)[1];
        out[1] = v.x + w.y;
    }"#;
    for opt in ["-O0", "-O2"] {
        let (br, bf, bo) = (
            buf_bytes(&[0u8; 16]),
            buf_f32(&[1.0; 16]),
            buf_f32(&[0.0; 4]),
        );
        let seen = accesses(src, opt, vec![arg(&br), arg(&bf), arg(&bo)]);
        let misaligned: Vec<_> = seen.iter().filter(|s| s.0 % s.3 as u64 != 0).collect();
        assert!(misaligned.is_empty(), "{opt}: {misaligned:?} of {seen:?}");
        assert!(
            seen.iter().any(|s| s.0 == 1 && s.3 == 1),
            "{opt}: the packed int is read at byte 1: {seen:?}"
        );
    }
}

#[test]
fn a_vectors_alignment_holds_for_its_start_under_every_schedule() {
    use AccessKind::*;
    // Each float2 read starts one float past a multiple of 8: its elements are 4-aligned, the
    // vector is not. The float2 stores are aligned.
    let src = r#"
    __kernel void k(__global float *in, __global float2 *out) {
        size_t i = get_global_id(0);
        out[i] = *(__global float2 *)(in + 1 + 2 * i);
    }"#;
    for opt in ["-O0", "-O2"] {
        for quantum in [0, 1, Schedule::AUTO] {
            let (bi, bo) = (buf_f32(&[1.0; 18]), buf_f32(&[0.0; 16]));
            let seen = accesses_of(src, opt, 8, quantum, vec![arg(&bi), arg(&bo)]);
            let at = format!("{opt}, quantum {quantum}");
            let reads: Vec<_> = seen.iter().filter(|s| s.2 == Read).collect();
            let writes: Vec<_> = seen.iter().filter(|s| s.2 == Write).collect();
            // Two elements per item, each naming its vector's start.
            assert_eq!(reads.len(), 16, "{at}: {seen:?}");
            assert_eq!(writes.len(), 16, "{at}: {seen:?}");
            for &&(start, size, _, align) in &reads {
                assert_eq!((size, align, start % 8), (4, 8, 4), "{at}: {reads:?}");
            }
            for &&(start, size, _, align) in &writes {
                assert_eq!((size, align, start % 8), (4, 8, 0), "{at}: {writes:?}");
            }
        }
    }
}

#[test]
fn a_struct_copys_alignment_holds_for_the_start_of_each_side() {
    use AccessKind::*;
    // The first copy's source starts two bytes into the buffer; everything else is aligned.
    let src = r#"
    struct rec { int a, b, c, d; };
    __kernel void k(__global char *in, __global struct rec *out) {
        out[0] = *(__global struct rec *)(in + 2);
        out[1] = *(__global struct rec *)(in + 16);
    }"#;
    for opt in ["-O0", "-O2"] {
        let (bi, bo) = (buf_bytes(&[7u8; 48]), buf_bytes(&[0u8; 32]));
        let seen = accesses(src, opt, vec![arg(&bi), arg(&bo)]);
        let mut starts: Vec<(u64, AccessKind, u32)> = seen
            .iter()
            .map(|&(start, _, kind, align)| (start, kind, align))
            .collect();
        starts.sort_by_key(|&(start, kind, _)| (kind == Write, start));
        starts.dedup();
        assert_eq!(
            starts,
            [(2, Read, 4), (16, Read, 4), (0, Write, 4), (16, Write, 4)],
            "{opt}: {seen:?}"
        );
        // Every part of both copies was made, 32 bytes each way.
        let bytes = |k: AccessKind| -> u32 { seen.iter().filter(|s| s.2 == k).map(|s| s.1).sum() };
        assert_eq!((bytes(Read), bytes(Write)), (32, 32), "{opt}: {seen:?}");
    }
}

#[test]
fn vload_and_vstore_need_their_elements_alignment_and_vloada_the_vectors() {
    use AccessKind::*;
    // A float pointer two bytes into the buffer: vload4 and vstore4 through it are
    // misaligned (4), vload4 from a float boundary is not; vloada_half4 needs 8 bytes.
    let src = r#"
    __kernel void k(__global char *in, __global float *out, __global half *h) {
        float4 a = vload4(0, (__global float *)(in + 2));
        float4 b = vload4(0, (__global float *)(in + 4));
        float4 c = vloada_half4(0, h + 2);
        vstore4(a + b + c, 0, (__global float *)(in + 22));
        out[0] = a.x + b.y + c.z;
    }"#;
    for opt in ["-O0", "-O2"] {
        let (bi, bo, bh) = (
            buf_bytes(&[0u8; 64]),
            buf_f32(&[0.0; 4]),
            buf_bytes(&[0u8; 32]),
        );
        let seen = accesses(src, opt, vec![arg(&bi), arg(&bo), arg(&bh)]);
        assert_eq!(
            misaligned(&seen),
            [(2, Read, 4), (4, Read, 8), (22, Write, 4)],
            "{opt}: {seen:?}"
        );
    }
}

#[test]
fn a_math_builtins_pointer_output_needs_its_whole_types_alignment() {
    use AccessKind::*;
    // fract, sincos and frexp store their second result through a pointer to its whole type:
    // a float4 pointer four bytes in needs 16, a double2 one 8 bytes in needs 16, an int
    // pointer at byte 4 (frexp's exponent of a scalar) is fine.
    let src = r#"
    __kernel void k(__global char *out, __global float4 *v, __global double2 *d) {
        v[0] = fract(v[1], (__global float4 *)(out + 4));
        d[0] = sincos(d[1], (__global double2 *)(out + 40));
        v[2].x = frexp(v[3].y, (__global int *)(out + 68));
    }"#;
    for opt in ["-O0", "-O2"] {
        let (bo, bv, bd) = (
            buf_bytes(&[0u8; 96]),
            buf_f32(&[1.5; 16]),
            buf_bytes(&[0u8; 32]),
        );
        let seen = accesses(src, opt, vec![arg(&bo), arg(&bv), arg(&bd)]);
        assert_eq!(
            misaligned(&seen),
            [(4, Write, 16), (40, Write, 16)],
            "{opt}: {seen:?}"
        );
    }
}

/// A module whose kernel `k(uchar *in, uchar *out)` loads a `{ulong, uint}` from `in + 4`
/// and stores it to `out + 12`, each first with the access's own `Aligned` operand
/// (`load_align`, `store_align`; none for the type's), then both again declaring 4.
/// OpenCL C compilers copy structs with memcpy; other producers load them whole.
fn aggregate_module(load_align: &str, store_align: &str) -> Vec<u8> {
    let text = format!(
        r#"
        OpCapability Addresses
        OpCapability Kernel
        OpCapability Int64
        OpCapability Int8
        OpMemoryModel Physical64 OpenCL
        OpEntryPoint Kernel %k "k"
        %void = OpTypeVoid
        %uint = OpTypeInt 32 0
        %ulong = OpTypeInt 64 0
        %uchar = OpTypeInt 8 0
        %rec = OpTypeStruct %ulong %uint
        %prec = OpTypePointer CrossWorkgroup %rec
        %pchar = OpTypePointer CrossWorkgroup %uchar
        %fn = OpTypeFunction %void %pchar %pchar
        %ulong_4 = OpConstant %ulong 4
        %ulong_12 = OpConstant %ulong 12
        %k = OpFunction %void None %fn
        %in = OpFunctionParameter %pchar
        %out = OpFunctionParameter %pchar
        %entry = OpLabel
        %pi = OpInBoundsPtrAccessChain %pchar %in %ulong_4
        %po = OpInBoundsPtrAccessChain %pchar %out %ulong_12
        %qi = OpBitcast %prec %pi
        %qo = OpBitcast %prec %po
        %v = OpLoad %rec %qi {load_align}
        OpStore %qo %v {store_align}
        %w = OpLoad %rec %qi Aligned 4
        OpStore %qo %w Aligned 4
        OpReturn
        OpFunctionEnd
        "#
    );
    assemble(&text)
}

#[test]
fn an_aggregate_access_needs_its_types_alignment_at_its_start() {
    use AccessKind::*;
    for (load_align, store_align, expected) in [
        // The type's own: 8 (its ulong), tested on the first leaf only.
        ("", "", vec![(4, Read, 8), (12, Write, 8)]),
        // Declared: what the module says, either way.
        ("Aligned 16", "Aligned 2", vec![(4, Read, 16)]),
    ] {
        let p = Program::load(&aggregate_module(load_align, store_align)).unwrap();
        let obs = Aligns {
            program: &p,
            seen: Mutex::new(Vec::new()),
        };
        let (bi, bo) = (buf_bytes(&[0u8; 32]), buf_bytes(&[0u8; 32]));
        let l = launch("k", 1, [1, 1, 1], [1, 1, 1], vec![arg(&bi), arg(&bo)]);
        Device::new(0)
            .run(&p, &l, &Schedule::default(), &obs)
            .unwrap();
        let seen = obs.seen.into_inner().unwrap();
        // Two leaves per access; the first, the ulong, starts the value (the checker tests
        // only it).
        assert_eq!(seen.len(), 8, "{seen:?}");
        // The uint leaves (at bytes 12 and 20) say they are part 1, so that the checker
        // neither tests nor counts them: `value_offset` puts them one uint back.
        let second: Vec<u64> = seen.iter().filter(|s| s.1 == 4).map(|s| s.0).collect();
        assert_eq!(second, [8, 16, 8, 16], "{seen:?}");
        let misaligned: Vec<(u64, AccessKind, u32)> = seen
            .iter()
            .filter(|s| s.1 == 8 && s.0 % s.3 as u64 != 0)
            .map(|&(start, _, kind, align)| (start, kind, align))
            .collect();
        assert_eq!(misaligned, expected, "{load_align} {store_align}: {seen:?}");
    }
}
