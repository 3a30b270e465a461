//! Definedness of private memory: with an observer that asks for it, the executor reports
//! reads of never-written bytes of private arrays and structs, and tells copies which bytes
//! they move undefined; without one, private memory costs and reports nothing.

mod common;

use common::*;
use shadowcl_interpreter::*;
use std::sync::Mutex;

/// What a test looks at: private reads, and the copies' accesses.
#[derive(Clone, Debug, PartialEq)]
struct Seen {
    space: AddressSpace,
    offset: u64,
    size: u32,
    kind: AccessKind,
    copy: bool,
    undefined: u8,
}

struct Watcher {
    definedness: bool,
    seen: Mutex<Vec<Seen>>,
}

impl Watcher {
    fn new(definedness: bool) -> Watcher {
        Watcher {
            definedness,
            seen: Mutex::new(Vec::new()),
        }
    }
}

impl Observer for Watcher {
    type Group = ();
    fn wants_definedness(&self) -> bool {
        self.definedness
    }
    fn group_start(&self, _g: &GroupInfo) {}
    fn access(&self, _g: &mut (), a: &Access<'_>) {
        if a.space == AddressSpace::Private || a.copy {
            self.seen.lock().unwrap().push(Seen {
                space: a.space,
                offset: a.offset,
                size: a.size,
                kind: a.kind,
                copy: a.copy,
                undefined: a.undefined,
            });
        }
    }
}

fn watch(src: &str, opt: &str, kernel: &str, args: Vec<ArgValue>, definedness: bool) -> Vec<Seen> {
    let p = program(src, opt);
    let w = Watcher::new(definedness);
    Device::new(0)
        .run(
            &p,
            &launch(kernel, 1, [1, 1, 1], [1, 1, 1], args),
            &Schedule::default(),
            &w,
        )
        .unwrap_or_else(|e| panic!("run failed: {e}"));
    w.seen.into_inner().unwrap()
}

const SCATTER: &str = r#"
__kernel void scatter(__global const uint *idx, __global float *out) {
  float s[4];
  for (int i = 0; i < 4; i++) s[idx[i]] = i;
  for (int i = 0; i < 4; i++) out[i] = s[i];
}
"#;

#[test]
fn reads_of_never_written_private_elements_are_reported_at_every_level() {
    for opt in ["-O0", "-O2"] {
        let idx = buf_bytes(&[0u32, 0, 1, 1].map(u32::to_le_bytes).concat());
        let out = buf_f32(&[0.0; 4]);
        let seen = watch(SCATTER, opt, "scatter", vec![arg(&idx), arg(&out)], true);
        // At -O2 the second loop is a memcpy of the array: a copy of floats, whose bytes
        // are all values, so it uses them as the loads of -O0 do.
        let mut undefined = [false; 16];
        for s in seen.iter().filter(|s| s.space == AddressSpace::Private) {
            assert!(s.kind == AccessKind::Read && !s.copy, "{opt}: {s:?}");
            for i in 0..s.size as u64 {
                undefined[(s.offset + i) as usize] |= s.undefined >> i & 1 != 0;
            }
        }
        // s[2] and s[3]; s[0] and s[1] were written.
        let expect: Vec<bool> = (0..16).map(|b| b >= 8).collect();
        assert_eq!(undefined.to_vec(), expect, "{opt}: {seen:?}");
    }
}

#[test]
fn private_memory_is_not_followed_unless_asked() {
    let idx = buf_bytes(&[0u32, 0, 1, 1].map(u32::to_le_bytes).concat());
    let out = buf_f32(&[0.0; 4]);
    let seen = watch(SCATTER, "-O2", "scatter", vec![arg(&idx), arg(&out)], false);
    assert!(
        seen.iter().all(|s| s.space != AddressSpace::Private),
        "{seen:?}"
    );
}

#[test]
fn a_struct_copy_moves_its_padding_undefined() {
    // At -O0 the private struct goes to global memory through a memcpy (OpCopyMemorySized):
    // its padding (bytes 1-3 after `tag`, 9-11 after `flag`) was never written.
    let src = r#"
        struct rec { char tag; int value; char flag; };
        __kernel void copy_rec(__global struct rec *out) {
          struct rec r;
          r.tag = 1; r.value = 2; r.flag = 3;
          *out = r;
        }
    "#;
    let out = buf_bytes(&[0u8; 12]);
    let seen = watch(src, "-O0", "copy_rec", vec![arg(&out)], true);
    // No private read is a use: the copy's loads are not reported.
    assert!(
        seen.iter().all(|s| s.space != AddressSpace::Private),
        "{seen:?}"
    );
    let mut undefined = [false; 12];
    for s in seen.iter().filter(|s| s.kind == AccessKind::Write) {
        assert!(s.copy && s.space == AddressSpace::Global);
        for i in 0..s.size as u64 {
            undefined[(s.offset + i) as usize] |= s.undefined >> i & 1 != 0;
        }
    }
    let expect = [
        false, true, true, true, false, false, false, false, false, true, true, true,
    ];
    assert_eq!(undefined, expect, "{seen:?}");
}

/// A group's work-items in lockstep each follow their own private bytes: every schedule
/// sees the same reads of never-written elements (lane `i` wrote only `s[i]`).
#[test]
fn lockstep_lanes_follow_their_own_private_bytes() {
    let src = r#"
        __kernel void lanes(__global const uint *idx, __global float *out) {
          size_t i = get_global_id(0);
          float s[4];
          s[idx[i]] = 1.0f;
          for (int k = 0; k < 4; k++) out[i * 4 + k] = s[k];
        }
    "#;
    for opt in ["-O0", "-O2"] {
        let p = program(src, opt);
        let idx = buf_bytes(&[0u32, 1, 2, 3].map(u32::to_le_bytes).concat());
        let out = buf_f32(&[0.0; 16]);
        let seen_under = |quantum: u32| {
            let w = Watcher::new(true);
            let s = Schedule {
                quantum,
                ..Schedule::default()
            };
            let l = launch("lanes", 1, [4, 1, 1], [4, 1, 1], vec![arg(&idx), arg(&out)]);
            Device::new(1)
                .run(&p, &l, &s, &w)
                .unwrap_or_else(|e| panic!("run failed: {e}"));
            let seen = w.seen.into_inner().unwrap();
            let undefined_bytes: u32 = seen.iter().map(|s| s.undefined.count_ones()).sum();
            let mut seen: Vec<String> = seen.iter().map(|s| format!("{s:?}")).collect();
            seen.sort();
            (seen, undefined_bytes)
        };
        let by_item = seen_under(0);
        // Three never-written floats per item, read or copied out.
        assert_eq!(by_item.1, 4 * 3 * 4, "{opt}: {:?}", by_item.0);
        assert_eq!(seen_under(1), by_item, "{opt}: lockstep");
        assert_eq!(seen_under(Schedule::AUTO), by_item, "{opt}: auto");
    }
}

/// `v.x = a; v.y = b;` on a private vector in memory writes those lanes: at -O0 clang makes
/// each a load of the whole vector, an insert and a store, but the source reads nothing, so
/// only a later read of a lane never written is one; and the values are as written.
#[test]
fn lane_writes_of_private_vectors_read_nothing() {
    let src = r#"
    __kernel void lanes(__global float *out, int n) {
      float4 v[2];
      for (int i = 0; i < n; i++) { v[i].x = 1.0f; v[i].y = 2.0f; }
      for (int i = 0; i < n; i++) v[i].w = 4.0f;
      out[0] = v[1].x + v[1].y + v[1].w;
      out[1] = v[0].z;
    }"#;
    for opt in ["-O0", "-O2"] {
        let out = buf_f32(&[0.0; 2]);
        let seen = watch(src, opt, "lanes", vec![arg(&out), val(2i32)], true);
        let reads: Vec<_> = seen
            .iter()
            .filter(|s| s.space == AddressSpace::Private)
            .collect();
        // Only v[0].z (bytes 8..12 of the array), read by `out[1] = v[0].z`.
        assert!(
            !reads.is_empty(),
            "{opt}: the unwritten lane's read is reported"
        );
        for s in &reads {
            assert!(
                s.offset + s.size as u64 > 8 && s.offset < 12,
                "{opt}: {s:?}"
            );
        }
        assert_eq!(read_f32(&out)[0], 7.0, "{opt}");
    }
}
