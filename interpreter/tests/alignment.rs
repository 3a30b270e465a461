//! `Program::alignments`: what each access must be aligned to, as the checkers see it
//! (issue #12 item 4: misaligned accesses are undefined behaviour, OpenCL C 6.3).

mod common;
use common::*;
use shadowcl_interpreter::*;
use std::sync::Mutex;

/// (offset, size, kind, required alignment) of every global access, in order.
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
                .push((a.offset, a.size, a.kind, align));
        }
    }
}

fn accesses(src: &str, opt: &str, args: Vec<ArgValue>) -> Vec<(u64, u32, AccessKind, u32)> {
    let p = program(src, opt);
    let obs = Aligns {
        program: &p,
        seen: Mutex::new(Vec::new()),
    };
    let l = launch("k", 1, [1, 1, 1], [1, 1, 1], args);
    Device::new(0)
        .run(&p, &l, &Schedule::default(), &obs)
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
