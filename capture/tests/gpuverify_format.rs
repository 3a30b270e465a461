//! The process folder's `log.json` follows GPUVerify's documented JSON format (json_format.rst)
//! and nothing in it would be rejected by GPUVerify's loader; the command-line exporter.

mod common;
use common::*;
use serde_json::Value;
use shadowcl_capture::DataMode;
use shadowcl_capture::{
    gpuverify_command, AddressQualifier, ArgData, ArgInput, BufferArg, Contents, LaunchInput,
    ProgramInput, RecordDir,
};
use std::path::Path;

/// Every rule of the documented format; returns the first violation.
fn validate_log(json_path: &Path) -> Result<usize, String> {
    let base = json_path.parent().unwrap();
    let text = std::fs::read_to_string(json_path).map_err(|e| e.to_string())?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    let arr = v
        .as_array()
        .ok_or("top level must be an array of kernel instantiations")?;
    const KEYS: &[&str] = &[
        "language",
        "endianness",
        "kernel_file",
        "local_size",
        "global_size",
        "global_offset",
        "compiler_flags",
        "entry_point",
        "kernel_arguments",
        "host_api_calls",
    ];
    let positive_dims =
        |e: &serde_json::Map<String, Value>, k: &str| -> Result<Option<Vec<u64>>, String> {
            let Some(x) = e.get(k) else { return Ok(None) };
            let a = x.as_array().ok_or(format!("{k} must be an array"))?;
            if a.is_empty() || a.len() > 3 {
                return Err(format!("{k} must have 1 to 3 dimensions"));
            }
            a.iter()
                .map(|n| match n.as_u64() {
                    Some(n) if n > 0 => Ok(n),
                    _ => Err(format!("{k} must hold numbers > 0, found {n}")),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some)
        };
    for (i, e) in arr.iter().enumerate() {
        let e = e.as_object().ok_or(format!("entry {i} is not an object"))?;
        for k in e.keys() {
            if !KEYS.contains(&k.as_str()) {
                return Err(format!("entry {i}: unknown key {k}"));
            }
        }
        if e.get("language") != Some(&Value::from("OpenCL")) {
            return Err(format!("entry {i}: language must be \"OpenCL\""));
        }
        if let Some(en) = e.get("endianness") {
            if en != "little" && en != "big" {
                return Err(format!("entry {i}: endianness {en}"));
            }
        }
        let kf = e
            .get("kernel_file")
            .and_then(Value::as_str)
            .ok_or(format!("entry {i}: kernel_file (string) is required"))?;
        if !base.join(kf).is_file() {
            return Err(format!(
                "entry {i}: kernel_file {kf} does not exist next to the JSON"
            ));
        }
        e.get("entry_point")
            .and_then(Value::as_str)
            .ok_or(format!("entry {i}: entry_point (string) is required"))?;
        let global = positive_dims(e, "global_size")?
            .ok_or(format!("entry {i}: global_size is required"))?;
        if let Some(local) = positive_dims(e, "local_size")? {
            if local.len() != global.len() {
                return Err(format!(
                    "entry {i}: local and global size dimensions differ"
                ));
            }
            if local.iter().zip(&global).any(|(l, g)| g % l != 0) {
                return Err(format!("entry {i}: local size does not divide global size"));
            }
        }
        if let Some(off) = positive_dims(e, "global_offset")? {
            if off.len() != global.len() {
                return Err(format!(
                    "entry {i}: offset and global size dimensions differ"
                ));
            }
        }
        if let Some(f) = e.get("compiler_flags") {
            f.as_str()
                .ok_or(format!("entry {i}: compiler_flags must be a string"))?;
        }
        let Some(args) = e.get("kernel_arguments") else {
            continue;
        };
        let args = args
            .as_array()
            .ok_or(format!("entry {i}: kernel_arguments must be an array"))?;
        for (j, a) in args.iter().enumerate() {
            let a = a
                .as_object()
                .ok_or(format!("entry {i} arg {j}: not an object"))?;
            let ty = a
                .get("type")
                .and_then(Value::as_str)
                .ok_or(format!("entry {i} arg {j}: type is required"))?;
            let allowed: &[&str] = match ty {
                "scalar" => &["type", "value"],
                "array" => &["type", "size", "address_space", "flags", "data"],
                "image" | "sampler" => &["type"],
                other => return Err(format!("entry {i} arg {j}: unknown type {other}")),
            };
            for k in a.keys() {
                if !allowed.contains(&k.as_str()) {
                    return Err(format!("entry {i} arg {j}: unknown key {k} for {ty}"));
                }
            }
            if let Some(v) = a.get("value") {
                let s = v
                    .as_str()
                    .ok_or(format!("entry {i} arg {j}: value must be a string"))?;
                let hex = s
                    .strip_prefix("0x")
                    .ok_or(format!("entry {i} arg {j}: value {s} must start with 0x"))?;
                if hex.is_empty() || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
                    return Err(format!("entry {i} arg {j}: value {s} is not hexadecimal"));
                }
            }
            if let Some(s) = a.get("size") {
                match s.as_u64() {
                    Some(n) if n > 0 => {}
                    _ => return Err(format!("entry {i} arg {j}: size must be a number > 0")),
                }
            }
            if let Some(s) = a.get("address_space") {
                if !["global", "local", "constant"].contains(&s.as_str().unwrap_or("")) {
                    return Err(format!("entry {i} arg {j}: address_space {s}"));
                }
            }
            if let Some(f) = a.get("flags") {
                let f = f
                    .as_array()
                    .ok_or(format!("entry {i} arg {j}: flags must be an array"))?;
                if !f.iter().all(Value::is_string) {
                    return Err(format!("entry {i} arg {j}: flags must be strings"));
                }
            }
            if let Some(d) = a.get("data") {
                let d = d
                    .as_str()
                    .ok_or(format!("entry {i} arg {j}: data must be a string"))?;
                let len = std::fs::metadata(base.join(d))
                    .map_err(|_| format!("entry {i} arg {j}: data file {d} missing"))?
                    .len();
                if Some(len) != a.get("size").and_then(Value::as_u64) {
                    return Err(format!("entry {i} arg {j}: data file {d} has {len} bytes"));
                }
            }
        }
    }
    Ok(arr.len())
}

fn record_with_null_and_offset(rec: &shadowcl_capture::Recorder) -> std::path::PathBuf {
    let n = 7u64.to_le_bytes();
    let args = [
        ArgInput {
            index: 0,
            name: "maybe",
            address: AddressQualifier::Global,
            access: "none",
            type_name: "float*",
            type_qualifier: 0,
            value: ArgData::Null,
        },
        ArgInput {
            index: 1,
            name: "n",
            address: AddressQualifier::Private,
            access: "none",
            type_name: "ulong",
            type_qualifier: 0,
            value: ArgData::Scalar(&n),
        },
        ArgInput {
            index: 2,
            name: "c",
            address: AddressQualifier::Constant,
            access: "none",
            type_name: "float*",
            type_qualifier: 0,
            value: ArgData::Buffer(BufferArg {
                size: 32,
                flags: 1 << 2,
                identity: 5,
                origin: 0,
                contents: Contents::Unavailable,
            }),
        },
    ];
    let launch = LaunchInput {
        program: ProgramInput {
            source: Some("__kernel void k(__global float* maybe, ulong n, __constant float* c) {}"),
            spirv: None,
            build_options: "-D N=4 -cl-fast-relaxed-math",
        },
        kernel: "k",
        work_dim: 2,
        global_offset: [2, 3, 0],
        global_size: [8, 6, 1],
        local_size_given: Some([4, 3, 1]),
        local_size: [4, 3, 1],
        args: &args,
    };
    let id = rec.record(&launch).unwrap().unwrap();
    rec.dir().join(shadowcl_capture::launch_dir_name(id.0))
}

#[test]
fn log_json_follows_every_documented_rule() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::Inputs);
    record_saxpy(&rec, None, None); // scalar, global, constant, local; NULL local size
    record_saxpy(&rec, None, Some([4, 1, 1]));
    record_with_null_and_offset(&rec); // NULL buffer, 64-bit scalar, 2-D offset, no data
                                       // SPIR-V-only programs cannot be given to GPUVerify: left out of the log.
    let spv = spirv(SAXPY);
    let args: [ArgInput; 0] = [];
    let il_only = LaunchInput {
        program: ProgramInput {
            source: None,
            spirv: Some(&spv),
            build_options: "",
        },
        kernel: "saxpy",
        work_dim: 1,
        global_offset: [0; 3],
        global_size: [1, 1, 1],
        local_size_given: None,
        local_size: [1, 1, 1],
        args: &args,
    };
    rec.record(&il_only).unwrap().unwrap();
    rec.flush().unwrap();
    let log = rec.dir().join("log.json");
    assert_eq!(validate_log(&log), Ok(3));

    let v: Value = serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    let e0 = &v[0];
    assert_eq!(e0["kernel_file"], "launch-0000/program.cl");
    assert_eq!(e0["entry_point"], "saxpy");
    assert_eq!(e0["global_size"], serde_json::json!([16]));
    assert!(
        e0.get("local_size").is_none(),
        "NULL local size must be omitted"
    );
    assert!(e0.get("global_offset").is_none());
    assert_eq!(e0["compiler_flags"], "-cl-std=CL1.2");
    assert_eq!(e0["endianness"], "little");
    let a = &e0["kernel_arguments"];
    assert_eq!(a.as_array().unwrap().len(), 5);
    assert_eq!(
        a[0],
        serde_json::json!({"type": "array", "size": 64, "address_space": "global",
            "flags": ["CL_MEM_READ_ONLY", "CL_MEM_COPY_HOST_PTR"], "data": "launch-0000/arg-0.bin"})
    );
    assert_eq!(a[1]["address_space"], "constant");
    assert_eq!(a[3], serde_json::json!({"type": "scalar", "value": "0x3"}));
    assert_eq!(
        a[4],
        serde_json::json!({"type": "array", "size": 16, "address_space": "local"})
    );
    assert_eq!(v[1]["local_size"], serde_json::json!([4]));
    let e2 = &v[2];
    assert_eq!(e2["global_offset"], serde_json::json!([2, 3]));
    assert_eq!(e2["local_size"], serde_json::json!([4, 3]));
    assert_eq!(
        e2["kernel_arguments"][0],
        serde_json::json!({"type": "array", "address_space": "global"})
    );
    assert_eq!(e2["kernel_arguments"][1]["value"], "0x7");
    assert!(e2["kernel_arguments"][2].get("data").is_none());

    // The same log can be rebuilt from the records on disk.
    let rebuilt = shadowcl_capture::test_support::log_from_records(rec.dir()).unwrap();
    assert_eq!(Value::Array(rebuilt), v);
}

#[test]
fn validator_rejects_what_gpuverify_rejects() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("k.cl"), "__kernel void k() {}").unwrap();
    let bad = [
        r#"{"language":"OpenCL"}"#,
        r#"[{"language":"OpenCL","kernel_file":"k.cl","global_size":[4],"entry_point":"k","extra":1}]"#,
        r#"[{"language":"OpenCL","kernel_file":"k.cl","global_size":[0],"entry_point":"k"}]"#,
        r#"[{"language":"OpenCL","kernel_file":"k.cl","global_size":[4],"global_offset":[0],"entry_point":"k"}]"#,
        r#"[{"language":"OpenCL","kernel_file":"k.cl","global_size":[4],"entry_point":"k","kernel_arguments":[{"type":"scalar","value":"12"}]}]"#,
        r#"[{"language":"OpenCL","kernel_file":"k.cl","global_size":[4],"entry_point":"k","kernel_arguments":[{"type":"array","address_space":"private"}]}]"#,
        r#"[{"language":"OpenCL","kernel_file":"k.cl","global_size":[4],"entry_point":"k","kernel_arguments":[{"type":"array","size":0}]}]"#,
        r#"[{"language":"OpenCL","kernel_file":"k.cl","global_size":[4],"local_size":[3],"entry_point":"k"}]"#,
        r#"[{"language":"OpenCL","global_size":[4],"entry_point":"k"}]"#,
    ];
    for (i, b) in bad.iter().enumerate() {
        let p = tmp.path().join(format!("bad{i}.json"));
        std::fs::write(&p, b).unwrap();
        assert!(
            validate_log(&p).is_err(),
            "case {i} should be rejected: {b}"
        );
    }
    let p = tmp.path().join("good.json");
    std::fs::write(
        &p,
        r#"[{"language":"OpenCL","kernel_file":"k.cl","global_size":[4],"entry_point":"k"}]"#,
    )
    .unwrap();
    assert_eq!(validate_log(&p), Ok(1));
}

#[test]
fn command_line_has_the_observed_preconditions() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::Inputs);
    let (_, d0) = record_saxpy(&rec, None, Some([4, 1, 1]));
    let (_, d1) = record_saxpy(&rec, None, None);
    let d2 = record_with_null_and_offset(&rec);
    let r0 = RecordDir::open(&d0).unwrap().record;
    assert_eq!(
        gpuverify_command(&r0, "program.cl"),
        "gpuverify '--local_size=[4]' '--num_groups=[4]' --kernel-args=saxpy,0x3 \
         --kernel-arrays=saxpy,64,64,64,16 --pointer-bitwidth=64 --clang-opt=-cl-std=CL1.2 program.cl"
    );
    let r1 = RecordDir::open(&d1).unwrap().record;
    let c1 = gpuverify_command(&r1, "/x/program.cl");
    assert!(
        c1.starts_with("gpuverify '--local_size=*' '--global_size=[16]' "),
        "{c1}"
    );
    let r2 = RecordDir::open(&d2).unwrap().record;
    assert_eq!(
        gpuverify_command(&r2, "k.cl"),
        "gpuverify '--local_size=[4,3]' '--num_groups=[2,2]' '--global_offset=[2,3]' \
         --kernel-args=k,0x7 '--kernel-arrays=k,*,32' --pointer-bitwidth=64 -D N=4 \
         --clang-opt=-cl-fast-relaxed-math k.cl"
    );
}
