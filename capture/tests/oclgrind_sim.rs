//! The .sim exporter, checked by running Oclgrind's `oclgrind-kernel` on its output.

mod common;
use common::*;
use shadowcl_capture::test_support::parse_oclgrind_dump;
use shadowcl_capture::DataMode;
use shadowcl_capture::{replay, sim_file, RecordDir, ReplayOptions};
use shadowcl_interpreter::NoObserver;
use std::process::Command;

#[test]
fn oclgrind_runs_the_exported_launch() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::Inputs);
    let (_, dir) = record_saxpy(&rec, None, Some([4, 1, 1]));
    let rd = RecordDir::open(&dir).unwrap();
    let cl = tmp.path().join("export.cl");
    std::fs::copy(rd.source_path().unwrap(), &cl).unwrap();
    let sim = sim_file(&rd, cl.to_str().unwrap()).unwrap();
    // The options (-cl-std=CL1.2) are said, not silently dropped.
    assert_eq!(sim.warnings.len(), 1, "{:?}", sim.warnings);
    let lines: Vec<&str> = sim.text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines[0], cl.to_str().unwrap());
    assert_eq!(lines[1], "saxpy");
    assert_eq!(lines[2], "16 1 1");
    assert_eq!(lines[3], "4 1 1");
    assert_eq!(lines[4], "<size=64 uchar dump>");
    assert!(sim.text.contains("<size=4 uchar> 3 0 0 0\n"));
    assert!(sim.text.contains("<size=16 uchar>\n"));
    let sim_path = tmp.path().join("launch.sim");
    std::fs::write(&sim_path, &sim.text).unwrap();

    let out = Command::new("oclgrind-kernel")
        .arg(&sim_path)
        .output()
        .expect("oclgrind-kernel is installed (ci/setup)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "oclgrind-kernel failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dumps = parse_oclgrind_dump(&stdout);
    let names: Vec<&str> = dumps.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, vec!["x", "y", "out"]);
    assert_eq!(from_ints(&dumps[2].1), saxpy_expected(3));
    let (x, y) = saxpy_inputs();
    assert_eq!(dumps[0].1, x);
    assert_eq!(dumps[1].1, y);

    // Oclgrind and the ShadowCL replay agree byte for byte.
    let ours = replay(&dir, &ReplayOptions::default(), &NoObserver).unwrap();
    assert_eq!(ours.outputs[1].bytes, dumps[2].1);
}

#[test]
fn unrecorded_contents_become_zero_fills_and_spirv_only_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = recorder(tmp.path(), DataMode::None);
    let (_, dir) = record_saxpy(&rec, None, None);
    let rd = RecordDir::open(&dir).unwrap();
    let sim = sim_file(&rd, "/abs/program.cl").unwrap();
    assert!(sim.text.contains("<size=64 uchar fill=0 dump>"));
    assert_eq!(
        sim.warnings
            .iter()
            .filter(|w| w.contains("filled with zeros"))
            .count(),
        3
    );
    assert!(sim_file(&rd, "/with space/p.cl").is_err());

    let spv = spirv(SAXPY);
    let args: [shadowcl_capture::ArgInput; 0] = [];
    let id = rec
        .record(&shadowcl_capture::LaunchInput {
            program: shadowcl_capture::ProgramInput {
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
        })
        .unwrap()
        .unwrap();
    let rd = RecordDir::open(rec.dir().join(shadowcl_capture::launch_dir_name(id.0))).unwrap();
    let e = sim_file(&rd, "/x.cl").unwrap_err().to_string();
    assert!(e.contains("SPIR-V only"), "{e}");
}
