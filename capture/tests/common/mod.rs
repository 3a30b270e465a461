//! Shared helpers: compile small kernels at test time and record launches of them through
//! the public Recorder API, the way the platform library does.
#![allow(dead_code)]

use shadowcl_capture::DataMode;
use shadowcl_capture::{
    AddressQualifier, ArgData, ArgInput, BufferArg, CaptureConfig, Contents, LaunchInput,
    ProgramInput, RecordId, Recorder,
};
use std::path::PathBuf;

pub const SAXPY: &str = r#"
__kernel void saxpy(__global const int* x, __constant int* y, __global int* out,
                    int a, __local int* tmp) {
    size_t i = get_global_id(0);
    size_t l = get_local_id(0);
    tmp[l] = x[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = a * tmp[l] + y[i];
}
"#;

/// Group g publishes its block of `data`, then reads the block of group g+1: the result
/// depends on which group runs first (an inter-group race).
pub const RACY: &str = r#"
__kernel void shift(__global int* data, __global int* out) {
    size_t g = get_group_id(0);
    size_t n = get_local_size(0);
    size_t l = get_local_id(0);
    data[g * n + l] = (int)g + 1;
    size_t next = (g + 1) % get_num_groups(0);
    out[g * n + l] = data[next * n + l];
}
"#;

/// The race-free twin: every group reads only its own block.
pub const RACE_FREE: &str = r#"
__kernel void shift(__global int* data, __global int* out) {
    size_t g = get_group_id(0);
    size_t n = get_local_size(0);
    size_t l = get_local_id(0);
    data[g * n + l] = (int)g + 1;
    barrier(CLK_GLOBAL_MEM_FENCE);
    out[g * n + l] = data[g * n + l] * 2;
}
"#;

pub fn ints(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn from_ints(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn recorder(root: &std::path::Path, data: DataMode) -> Recorder {
    Recorder::new(CaptureConfig {
        root: root.to_path_buf(),
        data,
        kernels: None,
        max_bytes: None,
        process_name: "test-1".into(),
    })
    .unwrap()
}

pub fn spirv(src: &str) -> Vec<u8> {
    let req = shadowcl_compiler::CompileRequest {
        sources: vec![src.to_string()],
        ..Default::default()
    };
    // Tests may read the environment: the cache it names keeps repeated builds fast.
    let compiler = shadowcl_compiler::Compiler::from_lookup(|k| std::env::var(k).ok()).unwrap();
    compiler.compile(&req).unwrap().spirv
}

pub const N: usize = 16;

pub fn saxpy_inputs() -> (Vec<u8>, Vec<u8>) {
    let x: Vec<i32> = (0..N as i32).collect();
    let y: Vec<i32> = (0..N as i32).map(|i| 100 * i).collect();
    (ints(&x), ints(&y))
}

pub fn saxpy_expected(a: i32) -> Vec<i32> {
    (0..N as i32).map(|i| a * i + 100 * i).collect()
}

/// Records one saxpy launch (global 16, local 4 or NULL) and returns the record folder.
pub fn record_saxpy(
    rec: &Recorder,
    with_spirv: Option<&[u8]>,
    local_given: Option<[u64; 3]>,
) -> (RecordId, PathBuf) {
    let (x, y) = saxpy_inputs();
    let out = vec![0xAAu8; N * 4];
    let a = 3i32.to_le_bytes();
    let args = [
        ArgInput {
            index: 0,
            name: "x",
            address: AddressQualifier::Global,
            access: "none",
            type_name: "int*",
            type_qualifier: shadowcl_capture::TYPE_CONST,
            value: ArgData::Buffer(BufferArg {
                size: x.len() as u64,
                flags: 1 << 2 | 1 << 5,
                identity: 1,
                origin: 0,
                contents: Contents::Bytes(&x),
            }),
        },
        ArgInput {
            index: 1,
            name: "y",
            address: AddressQualifier::Constant,
            access: "none",
            type_name: "int*",
            type_qualifier: shadowcl_capture::TYPE_CONST,
            value: ArgData::Buffer(BufferArg {
                size: y.len() as u64,
                flags: 1 << 2,
                identity: 2,
                origin: 0,
                contents: Contents::Bytes(&y),
            }),
        },
        ArgInput {
            index: 2,
            name: "out",
            address: AddressQualifier::Global,
            access: "none",
            type_name: "int*",
            type_qualifier: 0,
            value: ArgData::Buffer(BufferArg {
                size: out.len() as u64,
                flags: 1 << 1,
                identity: 3,
                origin: 0,
                contents: Contents::Bytes(&out),
            }),
        },
        ArgInput {
            index: 3,
            name: "a",
            address: AddressQualifier::Private,
            access: "none",
            type_name: "int",
            type_qualifier: 0,
            value: ArgData::Scalar(&a),
        },
        ArgInput {
            index: 4,
            name: "tmp",
            address: AddressQualifier::Local,
            access: "none",
            type_name: "int*",
            type_qualifier: 0,
            value: ArgData::Local(4 * 4),
        },
    ];
    let launch = LaunchInput {
        program: ProgramInput {
            source: Some(SAXPY),
            spirv: with_spirv,
            build_options: "-cl-std=CL1.2",
        },
        kernel: "saxpy",
        work_dim: 1,
        global_offset: [0, 0, 0],
        global_size: [N as u64, 1, 1],
        local_size_given: local_given,
        local_size: [4, 1, 1],
        args: &args,
    };
    let id = rec.record(&launch).unwrap().unwrap();
    let dir = rec.dir().join(shadowcl_capture::launch_dir_name(id.0));
    (id, dir)
}

/// Records a launch of `shift` (from RACY or RACE_FREE): 4 groups of 4.
pub fn record_shift(rec: &Recorder, src: &str) -> PathBuf {
    let data = vec![0u8; N * 4];
    let out = vec![0u8; N * 4];
    let spv = spirv(src);
    let buf = |i: u32, name: &'static str, bytes: &'static [u8]| ArgInput {
        index: i,
        name,
        address: AddressQualifier::Global,
        access: "none",
        type_name: "int*",
        type_qualifier: 0,
        value: ArgData::Buffer(BufferArg {
            size: bytes.len() as u64,
            flags: 1,
            identity: i as u64 + 10,
            origin: 0,
            contents: Contents::Bytes(bytes),
        }),
    };
    let data: &'static [u8] = Box::leak(data.into_boxed_slice());
    let out: &'static [u8] = Box::leak(out.into_boxed_slice());
    let args = [buf(0, "data", data), buf(1, "out", out)];
    let launch = LaunchInput {
        program: ProgramInput {
            source: Some(src),
            spirv: Some(&spv),
            build_options: "",
        },
        kernel: "shift",
        work_dim: 1,
        global_offset: [0; 3],
        global_size: [N as u64, 1, 1],
        local_size_given: Some([4, 1, 1]),
        local_size: [4, 1, 1],
        args: &args,
    };
    let id = rec.record(&launch).unwrap().unwrap();
    rec.dir().join(shadowcl_capture::launch_dir_name(id.0))
}
