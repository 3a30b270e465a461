//! The platform-library path: record a real `Launch` (executor types) right before running it,
//! run it, record its outputs, then replay the record and get the same bytes.

mod common;
use common::*;
use shadowcl_capture::DataMode;
use shadowcl_capture::{
    launch_dir_name, replay, ArgValueRecord, ProgramInput, RecordDir, ReplayOptions,
};
use shadowcl_interpreter::{ArgValue, Buffer, Device, Launch, NoObserver, Program, Schedule};

#[test]
fn record_launch_run_outputs_and_replay_agree() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::InputsOutputs);
    let spv = spirv(SAXPY);
    let program = Program::load(&spv).unwrap();
    let info = program.kernel("saxpy").unwrap().clone();
    let (x, y) = saxpy_inputs();
    // x and y live in one allocation (x at 0, y at 64): the record must keep them together.
    let xy = Buffer::new(128).unwrap();
    xy.write(0, &x).unwrap();
    xy.write(64, &y).unwrap();
    let out = Buffer::new(64).unwrap();
    let launch = Launch {
        kernel: "saxpy".into(),
        work_dim: 1,
        global_offset: [0; 3],
        global_size: [16, 1, 1],
        local_size: [4, 1, 1],
        args: vec![
            ArgValue::Buffer {
                buffer: xy.clone(),
                offset: 0,
                size: 64,
            },
            ArgValue::Buffer {
                buffer: xy.clone(),
                offset: 64,
                size: 64,
            },
            ArgValue::Buffer {
                buffer: out.clone(),
                offset: 0,
                size: 64,
            },
            ArgValue::Bytes(5i32.to_le_bytes().to_vec()),
            ArgValue::Local(16),
        ],
    };
    let id = rec
        .record_launch(
            ProgramInput {
                source: Some(SAXPY),
                spirv: Some(&spv),
                build_options: "",
            },
            &info,
            &launch,
            None,
            &[1 << 2, 1 << 2, 1 << 1, 0, 0],
        )
        .unwrap()
        .unwrap();
    let schedule = Schedule {
        parallel: false,
        ..Schedule::default()
    };
    Device::new(1)
        .run(&program, &launch, &schedule, &NoObserver)
        .unwrap();
    rec.record_launch_outputs(id, &launch).unwrap();
    let mut real = vec![0u8; 64];
    out.read(0, &mut real).unwrap();
    assert_eq!(from_ints(&real), saxpy_expected(5));

    let dir = rec.dir().join(launch_dir_name(id.0));
    let rd = RecordDir::open(&dir).unwrap();
    let names: Vec<&str> = rd.record.args.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, vec!["x", "y", "out", "a", "tmp"]);
    assert_eq!(rd.record.args[1].type_name, "int*");
    match (&rd.record.args[0].value, &rd.record.args[1].value) {
        (
            ArgValueRecord::Buffer {
                group: g0,
                origin: 0,
                ..
            },
            ArgValueRecord::Buffer {
                group: g1,
                origin: 64,
                ..
            },
        ) => assert_eq!(g0, g1),
        other => panic!("x/y not recorded as one allocation: {other:?}"),
    }
    assert_eq!(rd.recorded_outputs(2).unwrap(), Some(real.clone()));
    assert_eq!(rd.record.local_size_given, None);

    let replayed = replay(&dir, &ReplayOptions::default(), &NoObserver).unwrap();
    assert!(replayed.recorded_output_mismatches.is_empty());
    let out_replayed = replayed.outputs.iter().find(|o| o.name == "out").unwrap();
    assert_eq!(out_replayed.bytes, real);
}
