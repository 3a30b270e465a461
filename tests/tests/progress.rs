//! The progress line of long launches (docs/reports.md, "Progress"): shown on a terminal,
//! never written into a pipe. A child process (this test binary re-run with only
//! `long_launch_child`) runs one launch of about four seconds through opencl3 and the ICD
//! loader; the parent runs it once with stderr piped and once on a pseudo-terminal
//! (`script`), the control that shows the piped run would have caught a line. The piped run records its launches, and
//! `shadowcl replay` of one of them under several schedules is checked the same way.

use shadowcl_tests::{find_shadowcl_lib, have_program, run, skip, Icd, PLATFORM_NAME, TIMEOUT};
use std::path::{Path, PathBuf};
use std::process::Command;

const CHILD_ENV: &str = "SHADOWCL_TESTS_PROGRESS_CHILD";
/// Words of the line (`progress_message`): `12/64 work-groups, no findings so far`.
const LINE_WORDS: &str = "work-groups, ";

fn child_args() -> [&'static str; 5] {
    [
        "--exact",
        "long_launch_child",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]
}

#[test]
fn a_long_launch_draws_progress_on_a_terminal_and_nothing_into_a_pipe() {
    let test = "a_long_launch_draws_progress_on_a_terminal_and_nothing_into_a_pipe";
    let Some(icd) = Icd::shadowcl_and_pocl(test) else {
        return;
    };
    let exe = std::env::current_exe().expect("test binary path");

    let caps = tempfile::tempdir().expect("temp dir");
    let mut piped = icd.command(&exe);
    piped
        .args(child_args())
        .env(CHILD_ENV, PLATFORM_NAME)
        .env("SHADOWCL_CAPTURE", caps.path());
    let o = run(piped, TIMEOUT);
    o.assert_success();
    assert!(o.stdout.contains("long launch: done"), "{}", o.describe());
    for text in [&o.stdout, &o.stderr] {
        assert!(
            !text.contains(LINE_WORDS),
            "progress in a pipe: {}",
            o.describe()
        );
        assert!(
            !text.contains('\r') && !text.contains("\x1b["),
            "{}",
            o.describe()
        );
    }

    if !have_program("script", "--version") {
        skip(test, "no `script` (util-linux) for the terminal half");
        return;
    }
    let line = std::iter::once(exe.display().to_string())
        .chain(child_args().iter().map(|a| a.to_string()))
        .collect::<Vec<_>>()
        .join(" ");
    let mut on_tty = on_a_terminal(icd.command("script"), &line);
    on_tty.env(CHILD_ENV, PLATFORM_NAME);
    let t = run(on_tty, TIMEOUT);
    t.assert_success();
    assert!(t.stdout.contains("long launch: done"), "{}", t.describe());
    assert!(
        t.stdout.contains(LINE_WORDS) && t.stdout.contains("ShadowCL "),
        "no progress line on a terminal: {}",
        t.describe()
    );
    replay_progress(test, caps.path());
}

/// `script` gives `command_line` a pseudo-terminal and copies what it drew to our pipe.
fn on_a_terminal(mut script: Command, command_line: &str) -> Command {
    script.args(["-qec", command_line, "/dev/null"]);
    script
}

/// `shadowcl replay` of the long launch under two schedules (serial, checked: several
/// seconds) draws its line on a terminal and nothing into a pipe.
fn replay_progress(test: &str, caps: &Path) {
    let Some(cli) = find_shadowcl_lib()
        .and_then(|l| Some(l.parent()?.join("shadowcl")))
        .filter(|c| c.is_file())
    else {
        skip(
            test,
            "the shadowcl binary is not built (cargo build -p shadowcl)",
        );
        return;
    };
    let mut records: Vec<PathBuf> = std::fs::read_dir(caps)
        .expect("capture folder")
        .flat_map(|p| std::fs::read_dir(p.expect("entry").path()).expect("process folder"))
        .map(|r| r.expect("entry").path())
        .filter(|r| r.join("record.json").is_file())
        .collect();
    records.sort();
    // The last launch took two seconds or more (its child asserts it): after its first
    // schedule the replay is past the line's delay, whatever else the machine is doing (the
    // one before, 0.2 s or more under ten schedules, fell short when the calibration ran on
    // a loaded machine and the replay on a quiet one).
    let record = records.last().expect("records of the child's launches");
    let args = format!("replay {} --schedules 2", record.display());
    let words = "schedules, ";

    let mut piped = Command::new(&cli);
    piped.args(args.split(' '));
    let o = run(piped, TIMEOUT);
    o.assert_success();
    assert!(o.stdout.contains("replayed spin"), "{}", o.describe());
    assert!(
        !o.stderr.contains(words),
        "progress in a pipe: {}",
        o.describe()
    );
    assert!(!o.stderr.contains('\r'), "{}", o.describe());

    let t = run(
        on_a_terminal(Command::new("script"), &format!("{} {args}", cli.display())),
        TIMEOUT,
    );
    t.assert_success();
    assert!(
        t.stdout.contains(words) && t.stdout.contains("shadowcl replay "),
        "no progress line on a terminal: {}",
        t.describe()
    );
}

#[test]
#[ignore = "runs in a child process started by a_long_launch_draws_progress_on_a_terminal_and_nothing_into_a_pipe"]
fn long_launch_child() {
    use opencl3::command_queue::CommandQueue;
    use opencl3::context::Context;
    use opencl3::device::{Device, CL_DEVICE_TYPE_ALL};
    use opencl3::kernel::{ExecuteKernel, Kernel};
    use opencl3::memory::{Buffer, CL_MEM_WRITE_ONLY};
    use opencl3::platform::get_platforms;
    use opencl3::program::Program;
    use opencl3::types::{cl_int, CL_BLOCKING};
    use std::time::{Duration, Instant};

    let want = std::env::var(CHILD_ENV).expect("run by the parent test only");
    let platform = get_platforms()
        .expect("clGetPlatformIDs")
        .into_iter()
        .find(|p| p.name().is_ok_and(|n| n.contains(&want)))
        .expect("the ShadowCL platform");
    let device_id = *platform
        .get_devices(CL_DEVICE_TYPE_ALL)
        .expect("clGetDeviceIDs")
        .first()
        .expect("a device");
    let context = Context::from_device(&Device::new(device_id)).expect("context");
    #[allow(deprecated)]
    let queue = CommandQueue::create_default(&context, 0).expect("queue");
    let src = "__kernel void spin(__global int *out, int n) {\n\
               int acc = 0;\n\
               for (int i = 0; i < n; i++) acc = acc * 31 + i;\n\
               out[get_global_id(0)] = acc;\n}\n";
    let program = Program::create_and_build_from_source(&context, src, "").expect("build");
    let kernel = Kernel::create(&program, "spin").expect("kernel");
    const ITEMS: usize = 256;
    let out = unsafe {
        Buffer::<cl_int>::create(&context, CL_MEM_WRITE_ONLY, ITEMS, std::ptr::null_mut())
            .expect("buffer")
    };
    let launch = |n: cl_int| {
        let t = Instant::now();
        let done = unsafe {
            ExecuteKernel::new(&kernel)
                .set_arg(&out)
                .set_arg(&n)
                .set_global_work_size(ITEMS)
                .set_local_work_size(4)
                .enqueue_nd_range(&queue)
                .expect("enqueue")
        };
        done.wait().expect("launch");
        t.elapsed()
    };
    // Calibrated on this machine: a launch of about four seconds, well past the line's delay.
    let mut n: cl_int = 1000;
    let mut took = launch(n);
    while took < Duration::from_millis(200) && n < (1 << 28) {
        n *= 4;
        took = launch(n);
    }
    let scale = 4.0 / took.as_secs_f64();
    let n = ((n as f64) * scale).clamp(1.0, i32::MAX as f64) as cl_int;
    let took = launch(n);
    let mut first = [0 as cl_int; 1];
    unsafe {
        queue
            .enqueue_read_buffer(&out, CL_BLOCKING, 0, &mut first, &[])
            .expect("read");
    }
    assert!(
        took >= Duration::from_secs(2),
        "the launch took only {took:?}"
    );
    println!("long launch: done in {:.1} s", took.as_secs_f64());
}
