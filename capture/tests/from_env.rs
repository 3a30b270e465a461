//! `Recorder::from_env` (its own test binary: it changes the process environment).

mod common;
use shadowcl_capture::DataMode;
use shadowcl_capture::{find_records, Recorder};

#[test]
fn from_env_reads_the_contract_variables() {
    std::env::remove_var("SHADOWCL_CAPTURE");
    assert!(Recorder::from_env().is_none());

    let tmp = tempfile::tempdir().unwrap();
    std::env::set_var("SHADOWCL_CAPTURE", tmp.path());
    std::env::set_var("SHADOWCL_CAPTURE_DATA", "inputs+outputs");
    std::env::set_var("SHADOWCL_CAPTURE_KERNELS", "saxpy");
    std::env::set_var("SHADOWCL_CAPTURE_MAX_BYTES", "1M");
    let rec = Recorder::from_env().expect("SHADOWCL_CAPTURE is set");
    let name = rec
        .dir()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        name.ends_with(&format!("-{}", std::process::id())),
        "process folder {name} must be <exe>-<pid>"
    );
    assert_eq!(rec.config().data, DataMode::InputsOutputs);
    assert_eq!(rec.config().max_bytes, Some(1 << 20));
    assert!(rec.wants("saxpy") && !rec.wants("other"));

    // Many threads recording at once get distinct, complete records and one log entry each.
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                common::record_saxpy(&rec, None, Some([4, 1, 1]));
            });
        }
    });
    rec.flush().unwrap();
    let found = find_records(tmp.path()).unwrap();
    assert_eq!(found.len(), 8);
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(rec.dir().join("log.json")).unwrap())
            .unwrap();
    assert_eq!(log.as_array().unwrap().len(), 8);

    // Malformed values disable capture instead of failing the application.
    std::env::set_var("SHADOWCL_CAPTURE_DATA", "everything");
    assert!(Recorder::from_env().is_none());
    for k in [
        "SHADOWCL_CAPTURE",
        "SHADOWCL_CAPTURE_DATA",
        "SHADOWCL_CAPTURE_KERNELS",
        "SHADOWCL_CAPTURE_MAX_BYTES",
    ] {
        std::env::remove_var(k);
    }
}
