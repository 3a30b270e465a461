//! A Rust host through the `opencl3` crate (linked against the system ICD loader with
//! -lOpenCL). The loader reads OCL_ICD_VENDORS once per process, so the host runs in a child
//! process: this test binary re-runs itself with only the `opencl3_vadd_child` test selected.

use shadowcl_tests::{run, Icd, PLATFORM_NAME, TIMEOUT};

const CHILD_ENV: &str = "SHADOWCL_TESTS_OPENCL3_CHILD";

#[test]
fn opencl3_vadd_on_shadowcl_selected_by_name() {
    let Some(icd) = Icd::shadowcl_and_pocl("opencl3_vadd_on_shadowcl_selected_by_name") else {
        return;
    };
    let exe = std::env::current_exe().expect("test binary path");
    let mut cmd = icd.command(exe);
    cmd.args([
        "--exact",
        "opencl3_vadd_child",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(CHILD_ENV, PLATFORM_NAME);
    let o = run(cmd, TIMEOUT);
    o.assert_success();
    assert!(
        o.stdout.contains("opencl3 vadd: PASS on ShadowCL"),
        "{}",
        o.describe()
    );
}

#[test]
#[ignore = "runs in a child process started by opencl3_vadd_on_shadowcl_selected_by_name"]
fn opencl3_vadd_child() {
    use opencl3::command_queue::CommandQueue;
    use opencl3::context::Context;
    use opencl3::device::{Device, CL_DEVICE_TYPE_ALL};
    use opencl3::kernel::{ExecuteKernel, Kernel};
    use opencl3::memory::{Buffer, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY};
    use opencl3::platform::get_platforms;
    use opencl3::program::Program;
    use opencl3::types::{cl_float, CL_BLOCKING, CL_NON_BLOCKING};

    let want = std::env::var(CHILD_ENV).expect("run by the parent test only");
    let platforms = get_platforms().expect("clGetPlatformIDs");
    let names: Vec<String> = platforms
        .iter()
        .map(|p| p.name().unwrap_or_default())
        .collect();
    let platform = platforms
        .iter()
        .find(|p| p.name().is_ok_and(|n| n.contains(&want)))
        .unwrap_or_else(|| panic!("no platform named {want} among {names:?}"));
    let device_id = *platform
        .get_devices(CL_DEVICE_TYPE_ALL)
        .expect("clGetDeviceIDs")
        .first()
        .expect("a device");
    let device = Device::new(device_id);
    assert!(!device.name().expect("device name").is_empty());
    let context = Context::from_device(&device).expect("context");
    #[allow(deprecated)]
    let queue = CommandQueue::create_default(&context, 0).expect("queue");
    let src = "__kernel void saxpy(__global float *z, __global const float *x,\n\
               __global const float *y, float a) {\n\
               size_t i = get_global_id(0);\n  z[i] = a * x[i] + y[i];\n}\n";
    let program = Program::create_and_build_from_source(&context, src, "").expect("build program");
    let kernel = Kernel::create(&program, "saxpy").expect("kernel");

    const N: usize = 1000;
    let xs: Vec<cl_float> = (0..N).map(|i| i as cl_float).collect();
    let ys: Vec<cl_float> = (0..N).map(|i| (N - i) as cl_float).collect();
    let mut x = unsafe {
        Buffer::<cl_float>::create(&context, CL_MEM_READ_ONLY, N, std::ptr::null_mut())
            .expect("buffer x")
    };
    let mut y = unsafe {
        Buffer::<cl_float>::create(&context, CL_MEM_READ_ONLY, N, std::ptr::null_mut())
            .expect("buffer y")
    };
    let z = unsafe {
        Buffer::<cl_float>::create(&context, CL_MEM_WRITE_ONLY, N, std::ptr::null_mut())
            .expect("buffer z")
    };
    unsafe {
        queue
            .enqueue_write_buffer(&mut x, CL_BLOCKING, 0, &xs, &[])
            .expect("write x");
    }
    let y_written = unsafe {
        queue
            .enqueue_write_buffer(&mut y, CL_NON_BLOCKING, 0, &ys, &[])
            .expect("write y")
    };
    let a: cl_float = 2.0;
    let done = unsafe {
        ExecuteKernel::new(&kernel)
            .set_arg(&z)
            .set_arg(&x)
            .set_arg(&y)
            .set_arg(&a)
            .set_global_work_size(N)
            .set_wait_event(&y_written)
            .enqueue_nd_range(&queue)
            .expect("enqueue kernel")
    };
    let mut out = vec![0.0 as cl_float; N];
    let read = unsafe {
        queue
            .enqueue_read_buffer(&z, CL_NON_BLOCKING, 0, &mut out, &[done.get()])
            .expect("read z")
    };
    read.wait().expect("wait for read");
    for i in 0..N {
        assert_eq!(out[i], 2.0 * xs[i] + ys[i], "z[{i}]");
    }
    println!(
        "opencl3 vadd: PASS on {}",
        platform.name().unwrap_or_default()
    );
}
