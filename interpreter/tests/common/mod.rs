//! Test helpers: compile OpenCL C with clang-15 + llvm-spirv-15, bind buffers, record events.
#![allow(dead_code)]

use std::process::Command;
use std::sync::{Arc, Mutex};

use shadowcl_interpreter::*;

/// Compiles OpenCL C 1.2 source to SPIR-V with the given optimisation flag (`-O0`, `-O2`).
/// Retries without `-g` when llvm-spirv-15 cannot translate the debug info of optimised code.
pub fn compile(src: &str, opt: &str) -> Vec<u8> {
    compile_std(src, opt, "CL1.2")
}

/// [`compile`] for the OpenCL C version `std` (`-cl-std=`, such as `CL3.0`).
pub fn compile_std(src: &str, opt: &str, std: &str) -> Vec<u8> {
    compile_with(src, opt, std, true).unwrap_or_else(|_| match compile_with(src, opt, std, false) {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    })
}

/// Like [`compile`] without debug info (tools such as rspirv's reader reject its
/// module-level OpenCL.DebugInfo instructions).
pub fn compile_plain(src: &str, opt: &str) -> Vec<u8> {
    compile_with(src, opt, "CL1.2", false).unwrap_or_else(|e| panic!("{e}"))
}

fn compile_with(src: &str, opt: &str, std: &str, debug: bool) -> Result<Vec<u8>, String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let cl = dir.path().join("k.cl");
    let bc = dir.path().join("k.bc");
    let spv = dir.path().join("k.spv");
    std::fs::write(&cl, src).expect("write source");
    let mut c = Command::new("clang-15");
    c.args(["-c", "-target", "spir64", &format!("-cl-std={std}")]);
    c.args(opt.split_whitespace());
    if debug {
        c.arg("-g");
    }
    let out = c
        .args(["-Xclang", "-cl-kernel-arg-info", "-emit-llvm", "-o"])
        .arg(&bc)
        .arg(&cl)
        .output()
        .expect("clang-15 runs");
    if !out.status.success() {
        return Err(format!(
            "clang failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let out = Command::new("llvm-spirv-15")
        .arg(&bc)
        .arg("-o")
        .arg(&spv)
        .output()
        .expect("llvm-spirv-15 runs");
    if !out.status.success() {
        return Err(format!(
            "llvm-spirv failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(std::fs::read(&spv).expect("read spv"))
}

pub fn program(src: &str, opt: &str) -> Program {
    program_std(src, opt, "CL1.2")
}

/// [`program`] of OpenCL C version `std` ([`compile_std`]).
pub fn program_std(src: &str, opt: &str, std: &str) -> Program {
    let spv = compile_std(src, opt, std);
    match Program::load(&spv) {
        Ok(p) => p,
        Err(e) => panic!("load failed ({opt}, {std}): {e}"),
    }
}

pub fn buf_bytes(b: &[u8]) -> Arc<Buffer> {
    let buf = Buffer::new(b.len()).expect("alloc");
    buf.write(0, b).expect("write");
    buf
}
pub fn buf_f32(v: &[f32]) -> Arc<Buffer> {
    buf_bytes(&v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
}
pub fn buf_i32(v: &[i32]) -> Arc<Buffer> {
    buf_bytes(&v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
}
pub fn read_bytes(b: &Buffer) -> Vec<u8> {
    let mut v = vec![0u8; b.len()];
    b.read(0, &mut v).expect("read");
    v
}
pub fn read_f32(b: &Buffer) -> Vec<f32> {
    read_bytes(b)
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
pub fn read_i32(b: &Buffer) -> Vec<i32> {
    read_bytes(b)
        .chunks(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
pub fn arg(b: &Arc<Buffer>) -> ArgValue {
    ArgValue::Buffer {
        buffer: b.clone(),
        offset: 0,
        size: b.len() as u64,
    }
}
pub fn val<T: Copy>(x: T) -> ArgValue {
    // SAFETY-free byte view of plain numbers via to_ne_bytes equivalents.
    let n = std::mem::size_of::<T>();
    let mut v = vec![0u8; n];
    // Plain-old-data scalars only (i32, u32, f32, u64...).
    unsafe { std::ptr::copy_nonoverlapping(&x as *const T as *const u8, v.as_mut_ptr(), n) };
    ArgValue::Bytes(v)
}

pub fn launch(
    kernel: &str,
    dim: u32,
    global: [u64; 3],
    local: [u64; 3],
    args: Vec<ArgValue>,
) -> Launch {
    Launch {
        kernel: kernel.into(),
        work_dim: dim,
        global_offset: [0; 3],
        global_size: global,
        local_size: local,
        args,
    }
}

pub fn run(p: &Program, l: &Launch) -> LaunchStats {
    Device::new(0)
        .run(p, l, &Schedule::default(), &NoObserver)
        .unwrap_or_else(|e| panic!("run failed: {e}"))
}

/// One recorded observer event.
#[derive(Clone, Debug, PartialEq)]
pub enum Ev {
    LaunchStart {
        kernel: String,
        args: Vec<String>,
        locals: Vec<(String, u64)>,
    },
    GroupStart([u32; 3]),
    Access {
        space: AddressSpace,
        alloc: AllocId,
        offset: u64,
        size: u32,
        kind: AccessKind,
        value: Vec<u8>,
        local: u32,
    },
    Barrier {
        local: u32,
        inst: InstId,
        fences: Fences,
    },
    Release(Release),
    ItemEnd(u32),
    Fault(String),
    GroupEnd,
    LaunchEnd,
}

#[derive(Default)]
pub struct Recorder {
    pub events: Mutex<Vec<Ev>>,
    /// Lockstep operations handed over whole ([`Observer::access_lanes`]); their accesses
    /// are recorded one by one, as `access` would.
    pub lane_ops: std::sync::atomic::AtomicUsize,
    /// The allocations those operations accessed.
    pub lane_allocs: Mutex<std::collections::BTreeSet<u64>>,
}

impl Recorder {
    pub fn take(&self) -> Vec<Ev> {
        std::mem::take(&mut *self.events.lock().unwrap())
    }
    fn push(&self, e: Ev) {
        self.events.lock().unwrap().push(e);
    }
}

impl Observer for Recorder {
    type Group = Vec<Ev>;
    fn launch_start(&self, l: &LaunchInfo<'_>) {
        self.push(Ev::LaunchStart {
            kernel: l.kernel.into(),
            args: l.args.iter().map(|a| a.name.to_string()).collect(),
            locals: l
                .local_allocs
                .iter()
                .map(|a| (a.name.to_string(), a.size))
                .collect(),
        });
    }
    fn group_start(&self, g: &GroupInfo) -> Vec<Ev> {
        vec![Ev::GroupStart(g.group)]
    }
    fn access(&self, g: &mut Vec<Ev>, a: &Access<'_>) {
        g.push(Ev::Access {
            space: a.space,
            alloc: a.alloc,
            offset: a.offset,
            size: a.size,
            kind: a.kind,
            value: a.value.to_vec(),
            local: a.item.local_linear,
        });
    }
    fn access_lanes(&self, g: &mut Vec<Ev>, lanes: &LaneAccesses<'_>) {
        self.lane_ops
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.lane_allocs.lock().unwrap().insert(lanes.alloc.0);
        // Asserts (debug builds) that the executor's span is the lanes' own.
        let ((lo, hi), _) = lanes.span();
        assert!(lanes
            .order
            .iter()
            .all(|&l| (lo..hi).contains(&lanes.offsets[l])));
        let mut bytes = [[0u8; 8]; 2];
        for &l in lanes.order {
            self.access(g, &lanes.lane(l, &mut bytes));
        }
    }
    fn barrier(&self, g: &mut Vec<Ev>, b: &BarrierArrival<'_>) {
        g.push(Ev::Barrier {
            local: b.item.local_linear,
            inst: b.inst,
            fences: b.fences,
        });
    }
    fn barrier_release(&self, g: &mut Vec<Ev>, why: Release) {
        g.push(Ev::Release(why));
    }
    fn item_end(&self, g: &mut Vec<Ev>, i: &WorkItem) {
        g.push(Ev::ItemEnd(i.local_linear));
    }
    fn fault(&self, g: &mut Vec<Ev>, f: &Fault<'_>) {
        g.push(Ev::Fault(format!("{f:?}")));
    }
    fn group_end(&self, mut g: Vec<Ev>) {
        g.push(Ev::GroupEnd);
        self.events.lock().unwrap().extend(g);
    }
    fn launch_end(&self) {
        self.push(Ev::LaunchEnd);
    }
}

/// SPIR-V 1.0 assembled from `text` by `spirv-as` (for modules clang does not write).
pub fn assemble(text: &str) -> Vec<u8> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "shadowcl-spvasm-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, spv) = (dir.join("k.spvasm"), dir.join("k.spv"));
    std::fs::write(&src, text).unwrap();
    let st = std::process::Command::new("spirv-as")
        .args(["--target-env", "spv1.0", "-o"])
        .arg(&spv)
        .arg(&src)
        .status()
        .expect("spirv-as (spirv-tools) installed by ci/setup");
    assert!(st.success(), "spirv-as failed");
    let bytes = std::fs::read(&spv).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    bytes
}
