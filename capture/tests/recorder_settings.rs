//! A recorder made from the `SHADOWCL_CAPTURE*` settings (as the platform makes it).

mod common;
use shadowcl_capture::{find_records, CaptureConfig, DataMode, Recorder};

#[test]
fn a_recorder_from_the_contract_variables() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().display().to_string();
    let settings = |data: &'static str| {
        let root = root.clone();
        move |k: &str| match k {
            "SHADOWCL_CAPTURE" => Some(root.clone()),
            "SHADOWCL_CAPTURE_DATA" => Some(data.to_string()),
            "SHADOWCL_CAPTURE_KERNELS" => Some("saxpy".to_string()),
            "SHADOWCL_CAPTURE_MAX_BYTES" => Some("1M".to_string()),
            _ => None,
        }
    };
    assert_eq!(CaptureConfig::from_lookup(|_| None), Ok(None));
    let cfg = CaptureConfig::from_lookup(settings("inputs+outputs"))
        .unwrap()
        .expect("SHADOWCL_CAPTURE is set");
    let rec = Recorder::new(cfg).unwrap();
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

    // A malformed value is an error naming the variable (the platform then runs unrecorded).
    let err = CaptureConfig::from_lookup(settings("everything")).unwrap_err();
    assert!(err.contains("SHADOWCL_CAPTURE_DATA"), "{err}");
}
