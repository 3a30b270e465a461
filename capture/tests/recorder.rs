//! Records written through the Recorder API read back exactly; budget, filters, data modes,
//! outputs and the atomic-write guarantee.

mod common;
use common::*;
use shadowcl_capture::DataMode;
use shadowcl_capture::{
    find_records, AddressQualifier, ArgData, ArgInput, ArgValueRecord, BufferArg, CaptureConfig,
    Contents, LaunchInput, ProgramInput, RecordDir, Recorder,
};

#[test]
fn round_trip_of_every_field() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::Inputs);
    assert!(rec.dir().ends_with("test-1"));
    let spv = spirv(SAXPY);
    let (id, dir) = record_saxpy(&rec, Some(&spv), Some([4, 1, 1]));
    assert_eq!(id.0, 0);
    assert!(dir.ends_with("launch-0000"));
    let rd = RecordDir::open(&dir).unwrap();
    let r = &rd.record;
    assert_eq!(r.kernel, "saxpy");
    assert_eq!(r.work_dim, 1);
    assert_eq!(r.global_size, [16, 1, 1]);
    assert_eq!(r.local_size_given, Some([4, 1, 1]));
    assert_eq!(r.local_size, [4, 1, 1]);
    assert_eq!(r.program.build_options, "-cl-std=CL1.2");
    assert_eq!(r.program.sha256.len(), 64);
    assert_eq!(rd.source().unwrap().as_deref(), Some(SAXPY));
    assert_eq!(rd.spirv().unwrap(), Some(spv));
    assert_eq!(r.args.len(), 5);
    assert_eq!(r.args[0].name, "x");
    assert_eq!(r.args[0].type_qualifiers, vec!["const"]);
    assert_eq!(r.args[1].address, AddressQualifier::Constant);
    match &r.args[0].value {
        ArgValueRecord::Buffer {
            size,
            flag_names,
            group,
            contents,
            ..
        } => {
            assert_eq!(*size, 64);
            assert_eq!(
                flag_names,
                &vec![
                    "CL_MEM_READ_ONLY".to_string(),
                    "CL_MEM_COPY_HOST_PTR".into()
                ]
            );
            assert_eq!(*group, 0);
            assert_eq!(contents.as_deref(), Some("arg-0.bin"));
        }
        other => panic!("arg 0 is {other:?}"),
    }
    let (x, y) = saxpy_inputs();
    assert_eq!(rd.contents(0).unwrap(), Some(x));
    assert_eq!(rd.contents(1).unwrap(), Some(y));
    assert_eq!(rd.contents(2).unwrap(), Some(vec![0xAA; 64]));
    assert_eq!(
        r.args[3].value,
        ArgValueRecord::Scalar {
            bytes: shadowcl_capture::HexBytes(3i32.to_le_bytes().to_vec())
        }
    );
    assert_eq!(r.args[4].value, ArgValueRecord::Local { size: 16 });
    assert!(r.skipped.is_empty());

    // A second launch gets the next number; the listing sees both, in order.
    let (id2, _) = record_saxpy(&rec, None, None);
    assert_eq!(id2.0, 1);
    let found = find_records(tmp.path()).unwrap();
    assert_eq!(found.len(), 2);
    assert!(found[1].ends_with("launch-0001"));
    // A second recorder with the same process name gets its own folder.
    let rec2 = recorder(tmp.path(), DataMode::Inputs);
    assert!(rec2.dir().ends_with("test-1-2"), "{}", rec2.dir().display());
}

#[test]
fn aliased_buffers_share_a_group() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::Inputs);
    let bytes = ints(&[1, 2, 3, 4]);
    let arg = |i: u32, origin: u64, size: u64| ArgInput {
        index: i,
        name: if i == 0 { "a" } else { "b" },
        address: AddressQualifier::Global,
        access: "none",
        type_name: "int*",
        type_qualifier: 0,
        value: ArgData::Buffer(BufferArg {
            size,
            flags: 1,
            identity: 77,
            origin,
            contents: Contents::Bytes(&bytes[origin as usize..(origin + size) as usize]),
        }),
    };
    let args = [arg(0, 0, 16), arg(1, 8, 8)];
    let launch = LaunchInput {
        program: ProgramInput {
            source: Some("__kernel void k(__global int* a, __global int* b) {}"),
            spirv: None,
            build_options: "",
        },
        kernel: "k",
        work_dim: 1,
        global_offset: [0; 3],
        global_size: [1, 1, 1],
        local_size_given: None,
        local_size: [1, 1, 1],
        args: &args,
    };
    let id = rec.record(&launch).unwrap().unwrap();
    let rd = RecordDir::open(rec.dir().join(shadowcl_capture::launch_dir_name(id.0))).unwrap();
    let groups: Vec<(u32, u64)> = rd
        .record
        .args
        .iter()
        .map(|a| match a.value {
            ArgValueRecord::Buffer { group, origin, .. } => (group, origin),
            _ => (99, 99),
        })
        .collect();
    assert_eq!(groups, vec![(0, 0), (0, 8)]);
    assert_eq!(rd.contents(1).unwrap(), Some(ints(&[3, 4])));
}

#[test]
fn budget_filter_and_data_none_are_honoured_and_said() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = Recorder::new(CaptureConfig {
        root: tmp.path().to_path_buf(),
        data: DataMode::Inputs,
        kernels: Some(vec!["saxpy".into()]),
        // Program source (~300 bytes) + x (64) fit, y and out do not.
        max_bytes: Some(SAXPY.len() as u64 + 64 + 10),
        process_name: "budget".into(),
    })
    .unwrap();
    assert!(rec.wants("saxpy") && !rec.wants("other"));
    let (_, dir) = record_saxpy(&rec, None, Some([4, 1, 1]));
    let rd = RecordDir::open(&dir).unwrap();
    assert!(rd.contents(0).unwrap().is_some());
    assert_eq!(rd.contents(1).unwrap(), None);
    assert_eq!(rd.contents(2).unwrap(), None);
    assert_eq!(rd.record.skipped.len(), 2, "{:?}", rd.record.skipped);
    assert!(rd.record.skipped[0].contains("arg 1 (`y`)"));
    assert!(rd.record.skipped[0].contains("SHADOWCL_CAPTURE_MAX_BYTES"));

    // A filtered kernel is not recorded at all.
    let args: [ArgInput; 0] = [];
    let other = LaunchInput {
        program: ProgramInput {
            source: Some("__kernel void other() {}"),
            spirv: None,
            build_options: "",
        },
        kernel: "other",
        work_dim: 1,
        global_offset: [0; 3],
        global_size: [1, 1, 1],
        local_size_given: None,
        local_size: [1, 1, 1],
        args: &args,
    };
    assert_eq!(rec.record(&other).unwrap(), None);
    assert_eq!(find_records(rec.dir()).unwrap().len(), 1);

    let none = recorder(&tmp.path().join("none"), DataMode::None);
    let (_, dir) = record_saxpy(&none, None, None);
    let rd = RecordDir::open(&dir).unwrap();
    assert!((0..3).all(|i| rd.contents(i).unwrap().is_none()));
    assert_eq!(rd.record.data, DataMode::None);
    assert!(rd.record.skipped[0].contains("SHADOWCL_CAPTURE_DATA=none"));
}

#[test]
fn outputs_are_added_atomically_in_inputs_outputs_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::InputsOutputs);
    assert!(rec.wants_outputs());
    let (id, dir) = record_saxpy(&rec, None, Some([4, 1, 1]));
    let after = ints(&saxpy_expected(3));
    let dev = shadowcl_interpreter::Buffer::new(after.len() + 8).unwrap();
    dev.write(8, &after).unwrap();
    rec.record_outputs(
        id,
        &[(
            2,
            Contents::Device {
                buffer: &dev,
                offset: 8,
            },
        )],
    )
    .unwrap();
    let rd = RecordDir::open(&dir).unwrap();
    assert_eq!(rd.recorded_outputs(2).unwrap(), Some(after));
    assert_eq!(rd.recorded_outputs(0).unwrap(), None);
    // Completed once; a second call names the id.
    let err = rec.record_outputs(id, &[]).unwrap_err().to_string();
    assert!(err.contains("id 0"), "{err}");
    // Not a buffer: error names the argument.
    let (id2, _) = record_saxpy(&rec, None, None);
    let err = rec
        .record_outputs(id2, &[(3, Contents::Bytes(&[0; 4]))])
        .unwrap_err()
        .to_string();
    assert!(err.contains("argument 3 (`a`)"), "{err}");
    // No temp files left behind anywhere.
    let leftovers: Vec<_> = walk(tmp.path())
        .into_iter()
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

fn walk(p: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(p).unwrap() {
        let e = e.unwrap().path();
        if e.is_dir() {
            out.extend(walk(&e));
        }
        out.push(e);
    }
    out
}

#[test]
fn unfinished_records_are_invisible() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::Inputs);
    let (_, dir) = record_saxpy(&rec, None, None);
    // What a crash in the middle of writing leaves: the hidden temp folder.
    let crashed = rec.dir().join(".tmp-launch-0001");
    std::fs::create_dir(&crashed).unwrap();
    std::fs::copy(dir.join("record.json"), crashed.join("record.json")).unwrap();
    let found = find_records(tmp.path()).unwrap();
    assert_eq!(found, vec![dir]);
}

#[test]
fn inconsistent_input_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::Inputs);
    let bytes = [0u8; 8];
    let args = [ArgInput {
        index: 0,
        name: "a",
        address: AddressQualifier::Global,
        access: "none",
        type_name: "int*",
        type_qualifier: 0,
        value: ArgData::Buffer(BufferArg {
            size: 16,
            flags: 1,
            identity: 1,
            origin: 0,
            contents: Contents::Bytes(&bytes),
        }),
    }];
    let mut launch = LaunchInput {
        program: ProgramInput {
            source: Some("__kernel void k(__global int* a) {}"),
            spirv: None,
            build_options: "",
        },
        kernel: "k",
        work_dim: 4,
        global_offset: [0; 3],
        global_size: [1, 1, 1],
        local_size_given: None,
        local_size: [1, 1, 1],
        args: &args,
    };
    let err = rec.record(&launch).unwrap_err().to_string();
    assert!(err.contains("work_dim 4"), "{err}");
    launch.work_dim = 1;
    // Wrong-size contents are not written; the record says why.
    let id = rec.record(&launch).unwrap().unwrap();
    let rd = RecordDir::open(rec.dir().join(shadowcl_capture::launch_dir_name(id.0))).unwrap();
    assert_eq!(rd.contents(0).unwrap(), None);
    assert!(rd.record.skipped[0].contains("8 bytes given for a 16-byte buffer"));
}

/// `log.json` follows every launch while the log is short, then at most once a second (each
/// write costs the whole log), and whole at `flush`.
#[test]
fn the_gpuverify_log_is_rewritten_eagerly_only_while_short() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = common::recorder(tmp.path(), DataMode::None);
    let entries = || {
        let text = std::fs::read_to_string(rec.dir().join("log.json")).unwrap();
        let log: serde_json::Value = serde_json::from_str(&text).unwrap();
        log.as_array().map_or(0, Vec::len)
    };
    for n in 1..=64 {
        common::record_saxpy(&rec, None, Some([4, 1, 1]));
        assert_eq!(entries(), n);
    }
    // Past 64 entries, within the second of the last write: the file waits.
    let start = std::time::Instant::now();
    for _ in 0..8 {
        common::record_saxpy(&rec, None, Some([4, 1, 1]));
    }
    if start.elapsed() < std::time::Duration::from_millis(900) {
        assert_eq!(entries(), 64);
    }
    rec.flush().unwrap();
    assert_eq!(entries(), 72);
}

#[test]
fn launches_of_one_program_share_its_files_and_each_folder_stays_whole() {
    use std::os::unix::fs::MetadataExt;
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::None);
    let spv = spirv(SAXPY);
    let (_, first) = record_saxpy(&rec, Some(&spv), None);
    let (_, second) = record_saxpy(&rec, Some(&spv), None);
    let other = record_shift(&rec, RACY);
    let ino = |d: &std::path::Path, f: &str| std::fs::metadata(d.join(f)).unwrap().ino();
    // One file under two names: the program of 10,000 launches is written once.
    assert_eq!(ino(&first, "program.cl"), ino(&second, "program.cl"));
    assert_eq!(ino(&first, "program.spv"), ino(&second, "program.spv"));
    assert_ne!(ino(&first, "program.cl"), ino(&other, "program.cl"));
    // Each folder reads back alone, also once the first is gone.
    std::fs::remove_dir_all(&first).unwrap();
    let rd = RecordDir::open(&second).unwrap();
    assert_eq!(rd.source().unwrap().as_deref(), Some(SAXPY));
    assert_eq!(rd.spirv().unwrap(), Some(spv.clone()));
    // With the first copy gone, the next launch writes its own.
    let (_, third) = record_saxpy(&rec, Some(&spv), None);
    assert_eq!(
        RecordDir::open(&third)
            .unwrap()
            .source()
            .unwrap()
            .as_deref(),
        Some(SAXPY)
    );
    assert_ne!(ino(&third, "program.cl"), ino(&second, "program.cl"));
    let rd = RecordDir::open(&other).unwrap();
    assert!(rd.source().unwrap().is_some_and(|s| s.contains("shift")));
}
