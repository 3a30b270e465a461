//! Replay of recorded launches on the software device, and the schedule amplifier.

mod common;
use common::*;
use shadowcl_capture::DataMode;
use shadowcl_capture::{amplify, amplify_plain, replay, AmplifyOptions, ReplayOptions, Replayer};
use shadowcl_interpreter::{NoObserver, Order, Schedule};

#[test]
fn replays_recorded_spirv_and_source() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::Inputs);
    let spv = spirv(SAXPY);
    let (_, with_spv) = record_saxpy(&rec, Some(&spv), Some([4, 1, 1]));
    let (_, source_only) = record_saxpy(&rec, None, None);
    for dir in [&with_spv, &source_only] {
        let out = replay(dir, &ReplayOptions::default(), &NoObserver).unwrap();
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        // Global buffers only (the constant `y` is not an output).
        let names: Vec<&str> = out.outputs.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, vec!["x", "out"]);
        assert_eq!(from_ints(&out.outputs[1].bytes), saxpy_expected(3));
        assert_eq!(
            from_ints(&out.outputs[0].bytes),
            (0..16).collect::<Vec<_>>()
        );
        assert_eq!(out.stats.work_items, 16);
    }
    let rp = Replayer::open(&source_only).unwrap();
    assert!(rp.compiled_from_source);
    assert!(!Replayer::open(&with_spv).unwrap().compiled_from_source);
}

#[test]
fn replay_compares_with_recorded_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::InputsOutputs);
    let (id, dir) = record_saxpy(&rec, None, Some([4, 1, 1]));
    // Pretend the real device computed something else at element 5.
    let mut wrong = saxpy_expected(3);
    wrong[5] += 1;
    let wrong = ints(&wrong);
    rec.record_outputs(id, &[(2, shadowcl_capture::Contents::Bytes(&wrong))])
        .unwrap();
    let out = replay(&dir, &ReplayOptions::default(), &NoObserver).unwrap();
    assert_eq!(out.recorded_output_mismatches, vec![(2, 20)]);
}

#[test]
fn data_none_records_replay_with_zeros_and_say_so() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::None);
    let (_, dir) = record_saxpy(&rec, None, Some([4, 1, 1]));
    let out = replay(&dir, &ReplayOptions::default(), &NoObserver).unwrap();
    assert_eq!(out.warnings.len(), 3, "{:?}", out.warnings);
    assert_eq!(from_ints(&out.outputs[1].bytes), vec![0; 16]);
    let strict = ReplayOptions {
        allow_missing_contents: false,
        ..ReplayOptions::default()
    };
    let err = replay(&dir, &strict, &NoObserver).unwrap_err().to_string();
    assert!(err.contains("field `args[0].contents`"), "{err}");
}

#[test]
fn amplifier_finds_inter_group_dependence() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::Inputs);
    let dir = record_shift(&rec, RACY);
    let rp = Replayer::open(&dir).unwrap();
    let opts = AmplifyOptions {
        schedules: 10,
        ..AmplifyOptions::default()
    };
    let mut runs = Vec::new();
    let amp = amplify(
        &rp,
        &opts,
        |_, device, program, launch, s| device.run(program, launch, s, &NoObserver),
        |i, s, _| runs.push((i, s.describe())),
    )
    .unwrap();
    assert_eq!(runs.len(), 10);
    assert_eq!(amp.schedules.len(), 10);
    // `data` is the same under every schedule; `out` is not.
    assert_eq!(amp.findings.len(), 1, "{:#?}", amp.findings);
    let f = &amp.findings[0];
    assert_eq!(f.kind, "schedule-dependent-output");
    assert_eq!(f.buffer, "out");
    assert_eq!(f.arg_index, 1);
    assert_eq!(f.kernel, "shift");
    assert_eq!(f.index, f.offset / 4);
    assert!(!f.offsets.is_empty() && f.offsets[0] == f.offset);
    assert!(f.differing_bytes > 0);
    assert!(f.count >= 1);
    assert_ne!(f.first.schedule, f.second.schedule);
    assert!(f.second.reproduce.contains("--seed"));
    assert_ne!(f.first.bytes, f.second.bytes);
    // In order, group 0 reads group 1's block before it is written.
    assert_eq!(f.first.schedule, amp.schedules[0].describe());
    assert_eq!(from_ints(&amp.baseline.outputs[1].bytes)[..4], [0, 0, 0, 0]);

    // Deterministic: the same options give the same findings.
    let again = amplify_plain(&rp, &opts).unwrap();
    assert_eq!(again.findings, amp.findings);

    // The schedule named in the finding reproduces the second output on its own.
    let second = amp
        .schedules
        .iter()
        .find(|s| s.describe() == f.second.schedule)
        .unwrap();
    let rerun = rp.run(second, &NoObserver).unwrap();
    let off = f.offset as usize;
    assert_ne!(
        rerun.outputs[1].bytes[off],
        amp.baseline.outputs[1].bytes[off]
    );
}

#[test]
fn amplifier_is_quiet_on_the_race_free_twin() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::Inputs);
    let dir = record_shift(&rec, RACE_FREE);
    let rp = Replayer::open(&dir).unwrap();
    let amp = amplify_plain(
        &rp,
        &AmplifyOptions {
            schedules: 10,
            ..AmplifyOptions::default()
        },
    )
    .unwrap();
    assert!(amp.findings.is_empty(), "{:#?}", amp.findings);
    assert_eq!(
        from_ints(&amp.baseline.outputs[1].bytes),
        (0..16).map(|i| (i / 4 + 1) * 2).collect::<Vec<_>>()
    );
}

#[test]
fn replay_is_deterministic_for_a_seed() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::Inputs);
    let dir = record_shift(&rec, RACY);
    let rp = Replayer::open(&dir).unwrap();
    let s = Schedule {
        wg_order: Order::Random,
        wi_order: Order::Random,
        quantum: 1,
        seed: 12345,
        parallel: false,
        threads: 1,
    };
    let a = rp.run(&s, &NoObserver).unwrap();
    let b = rp.run(&s, &NoObserver).unwrap();
    assert_eq!(a.outputs, b.outputs);
}

#[test]
fn two_dimensional_launch_with_offset_replays() {
    use shadowcl_capture::{
        AddressQualifier, ArgData, ArgInput, BufferArg, Contents, LaunchInput, ProgramInput,
    };
    let src = "__kernel void grid(__global int* out, int w) {
        size_t x = get_global_id(0), y = get_global_id(1);
        out[(y - get_global_offset(1)) * w + (x - get_global_offset(0))] = (int)(x + 100 * y);
    }";
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::Inputs);
    let zeros = [0u8; 4 * 4 * 2];
    let w = 4i32.to_le_bytes();
    let args = [
        ArgInput {
            index: 0,
            name: "out",
            address: AddressQualifier::Global,
            access: "none",
            type_name: "int*",
            type_qualifier: 0,
            value: ArgData::Buffer(BufferArg {
                size: zeros.len() as u64,
                flags: 1,
                identity: 1,
                origin: 0,
                contents: Contents::Bytes(&zeros),
            }),
        },
        ArgInput {
            index: 1,
            name: "w",
            address: AddressQualifier::Private,
            access: "none",
            type_name: "int",
            type_qualifier: 0,
            value: ArgData::Scalar(&w),
        },
    ];
    let id = rec
        .record(&LaunchInput {
            program: ProgramInput {
                source: Some(src),
                spirv: None,
                build_options: "",
            },
            kernel: "grid",
            work_dim: 2,
            global_offset: [3, 5, 0],
            global_size: [4, 2, 1],
            local_size_given: Some([2, 1, 1]),
            local_size: [2, 1, 1],
            args: &args,
        })
        .unwrap()
        .unwrap();
    let dir = rec.dir().join(shadowcl_capture::launch_dir_name(id.0));
    let out = replay(&dir, &ReplayOptions::default(), &NoObserver).unwrap();
    let expected: Vec<i32> = (0..2)
        .flat_map(|y| (0..4).map(move |x| (x + 3) + 100 * (y + 5)))
        .collect();
    assert_eq!(from_ints(&out.outputs[0].bytes), expected);
    assert_eq!(out.stats.work_groups, 4);
}
