//! Damaged or inconsistent records give clear errors that name the field or file.

mod common;
use common::*;
use shadowcl_capture::DataMode;
use shadowcl_capture::{replay, RecordDir, ReplayOptions, Replayer};
use shadowcl_interpreter::NoObserver;
use std::path::{Path, PathBuf};

fn fresh() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::Inputs);
    let spv = spirv(SAXPY);
    let (_, dir) = record_saxpy(&rec, Some(&spv), Some([4, 1, 1]));
    (tmp, dir)
}

fn edit_json(dir: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let p = dir.join("record.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(&p, serde_json::to_string(&v).unwrap()).unwrap();
}

fn open_err(dir: &Path) -> String {
    RecordDir::open(dir).unwrap_err().to_string()
}

#[test]
fn truncated_json() {
    let (_t, dir) = fresh();
    let p = dir.join("record.json");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, &text[..text.len() / 2]).unwrap();
    let e = open_err(&dir);
    assert!(e.contains("record.json") && e.contains("EOF"), "{e}");
    assert!(e.contains(&dir.display().to_string()), "{e}");
}

#[test]
fn missing_record_json_and_missing_field() {
    let (_t, dir) = fresh();
    edit_json(&dir, |v| {
        v.as_object_mut().unwrap().remove("kernel");
    });
    let e = open_err(&dir);
    assert!(e.contains("missing field `kernel`"), "{e}");
    std::fs::remove_file(dir.join("record.json")).unwrap();
    let e = open_err(&dir);
    assert!(e.contains("missing record.json"), "{e}");
}

#[test]
fn missing_files() {
    let (_t, dir) = fresh();
    std::fs::remove_file(dir.join("arg-2.bin")).unwrap();
    let e = open_err(&dir);
    assert!(
        e.contains("field `args[2].contents`: file arg-2.bin is missing"),
        "{e}"
    );
    let (_t2, dir) = fresh();
    std::fs::remove_file(dir.join("program.spv")).unwrap();
    let e = open_err(&dir);
    assert!(e.contains("field `program.spirv`"), "{e}");
}

#[test]
fn wrong_sizes() {
    let (_t, dir) = fresh();
    std::fs::write(dir.join("arg-0.bin"), [0u8; 60]).unwrap();
    let e = open_err(&dir);
    assert!(
        e.contains("field `args[0].contents`: arg-0.bin has 60 bytes but `args[0].size` is 64"),
        "{e}"
    );
    let (_t2, dir) = fresh();
    edit_json(&dir, |v| v["args"][3]["bytes"] = "0100".into());
    let e = Replayer::open(&dir).unwrap_err().to_string();
    assert!(
        e.contains("field `args[3].bytes`: 2 bytes recorded but `a` is 4 bytes"),
        "{e}"
    );
    let (_t3, dir) = fresh();
    edit_json(&dir, |v| v["global_size"][0] = 0.into());
    assert!(open_err(&dir).contains("field `global_size[0]`"));
    let (_t4, dir) = fresh();
    edit_json(&dir, |v| v["work_dim"] = 7.into());
    assert!(open_err(&dir).contains("field `work_dim`"));
    let (_t5, dir) = fresh();
    edit_json(&dir, |v| v["args"][3]["bytes"] = "xyz".into());
    assert!(open_err(&dir).contains("odd number of digits"));
}

#[test]
fn unknown_kernel_and_argument_mismatch() {
    let (_t, dir) = fresh();
    edit_json(&dir, |v| v["kernel"] = "saxpy2".into());
    let e = Replayer::open(&dir).unwrap_err().to_string();
    assert!(
        e.contains("field `kernel`: the program has no kernel named `saxpy2` (it has: saxpy)"),
        "{e}"
    );
    let (_t2, dir) = fresh();
    edit_json(&dir, |v| {
        v["args"].as_array_mut().unwrap().pop();
    });
    let e = replay(&dir, &ReplayOptions::default(), &NoObserver)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("field `args`: 4 arguments recorded but kernel `saxpy` takes 5"),
        "{e}"
    );
    let (_t3, dir) = fresh();
    edit_json(&dir, |v| {
        v["args"][4] = serde_json::json!({"index": 4, "name": "tmp", "address": "local",
            "type_name": "int*", "kind": "scalar", "bytes": "00000000"});
    });
    let e = Replayer::open(&dir).unwrap_err().to_string();
    assert!(
        e.contains("field `args[4].kind`: recorded as scalar"),
        "{e}"
    );
}

#[test]
fn bad_spirv_and_escaping_file_names() {
    let (_t, dir) = fresh();
    std::fs::write(dir.join("program.spv"), b"not spirv at all, no.").unwrap();
    let e = Replayer::open(&dir).unwrap_err().to_string();
    assert!(e.contains("field `program.spirv`"), "{e}");
    let (_t2, dir) = fresh();
    edit_json(&dir, |v| {
        v["args"][0]["contents"] = "../../etc/passwd".into()
    });
    let e = open_err(&dir);
    assert!(e.contains("field `args[0].contents`"), "{e}");
    let (_t3, dir) = fresh();
    edit_json(&dir, |v| v["format"] = "other/9".into());
    assert!(open_err(&dir).contains("field `format`"));
}
