//! End to end through the entry points (without the loader): build from source and from
//! SPIR-V, set arguments, launch, read back, and check the errors applications rely on.

use shadowcl::consts::*;
use shadowcl::test_support::*;
use shadowcl::types::*;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};

const SRC: &str = "__kernel void axpy(__global const float *x, __global float *y, float a) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}";

fn have_compiler() -> bool {
    std::process::Command::new("clang-15")
        .arg("--version")
        .output()
        .is_ok()
}

struct Env {
    ctx: cl_context,
    q: cl_command_queue,
}

fn env() -> Env {
    let d = device_id();
    let mut err = 0;
    // SAFETY: valid arguments; handles checked below.
    unsafe {
        let ctx = clCreateContext(null(), 1, &d, None, null_mut(), &mut err);
        assert_eq!(err, CL_SUCCESS);
        let q = clCreateCommandQueue(ctx, d, 0, &mut err);
        assert_eq!(err, CL_SUCCESS);
        Env { ctx, q }
    }
}

/// Runs axpy with a = 2 over 256 elements and checks y = 2x + y. `non_uniform`: the program
/// allows work-groups that do not divide the NDRange (SPIR-V, or OpenCL C 2.0+).
fn run_axpy(e: &Env, prog: cl_program, non_uniform: bool) {
    let n = 256usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut y: Vec<f32> = vec![1.0; n];
    let mut err = 0;
    // SAFETY: buffers sized n floats; handles live for the block.
    unsafe {
        let name = CString::new("axpy").unwrap_or_default();
        let k = clCreateKernel(prog, name.as_ptr(), &mut err);
        assert_eq!(err, CL_SUCCESS, "clCreateKernel");
        let bx = clCreateBuffer(
            e.ctx,
            CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY,
            4 * n,
            x.as_ptr() as *mut c_void,
            &mut err,
        );
        assert_eq!(err, CL_SUCCESS);
        let by = clCreateBuffer(
            e.ctx,
            CL_MEM_COPY_HOST_PTR,
            4 * n,
            y.as_mut_ptr().cast(),
            &mut err,
        );
        assert_eq!(err, CL_SUCCESS);
        let g = [n];
        // Not all arguments set yet.
        assert_eq!(
            clEnqueueNDRangeKernel(e.q, k, 1, null(), g.as_ptr(), null(), 0, null(), null_mut()),
            CL_INVALID_KERNEL_ARGS
        );
        assert_eq!(
            clSetKernelArg(k, 0, 8, (&bx as *const cl_mem).cast()),
            CL_SUCCESS
        );
        assert_eq!(
            clSetKernelArg(k, 1, 8, (&by as *const cl_mem).cast()),
            CL_SUCCESS
        );
        let a = 2.0f32;
        assert_eq!(
            clSetKernelArg(k, 2, 8, (&a as *const f32).cast()),
            CL_INVALID_ARG_SIZE
        );
        assert_eq!(
            clSetKernelArg(k, 2, 4, (&a as *const f32).cast()),
            CL_SUCCESS
        );
        assert_eq!(
            clSetKernelArg(k, 3, 4, (&a as *const f32).cast()),
            CL_INVALID_ARG_INDEX
        );
        let mut ev: cl_event = null_mut();
        // The application's buffer references may go before the command runs.
        assert_eq!(
            clEnqueueNDRangeKernel(e.q, k, 1, null(), g.as_ptr(), null(), 0, null(), &mut ev),
            CL_SUCCESS
        );
        assert_eq!(clWaitForEvents(1, &ev), CL_SUCCESS);
        assert_eq!(
            clEnqueueReadBuffer(
                e.q,
                by,
                CL_TRUE,
                0,
                4 * n,
                y.as_mut_ptr().cast(),
                0,
                null(),
                null_mut()
            ),
            CL_SUCCESS
        );
        for (i, v) in y.iter().enumerate() {
            assert_eq!(*v, 2.0 * i as f32 + 1.0, "element {i}");
        }
        // A local size that does not divide the global size: only for non-uniform programs.
        let l = [100usize];
        let want = if non_uniform {
            CL_SUCCESS
        } else {
            CL_INVALID_WORK_GROUP_SIZE
        };
        assert_eq!(
            clEnqueueNDRangeKernel(
                e.q,
                k,
                1,
                null(),
                g.as_ptr(),
                l.as_ptr(),
                0,
                null(),
                null_mut()
            ),
            want
        );
        assert_eq!(clFinish(e.q), CL_SUCCESS);
        for h in [bx, by] {
            assert_eq!(clReleaseMemObject(h), CL_SUCCESS);
        }
        assert_eq!(clReleaseEvent(ev), CL_SUCCESS);
        assert_eq!(clReleaseKernel(k), CL_SUCCESS);
    }
}

#[test]
fn source_program_builds_runs_and_reports_errors() {
    if !have_compiler() {
        eprintln!("clang-15 not installed: skipping (ci/setup installs it)");
        return;
    }
    let e = env();
    let mut err = 0;
    let src = CString::new(SRC).unwrap_or_default();
    let p = src.as_ptr();
    // SAFETY: valid arguments.
    unsafe {
        let prog = clCreateProgramWithSource(e.ctx, 1, &mut { p }, null(), &mut err);
        assert_eq!(err, CL_SUCCESS);
        // Kernels need a built program.
        let name = CString::new("axpy").unwrap_or_default();
        assert!(clCreateKernel(prog, name.as_ptr(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_PROGRAM_EXECUTABLE);
        let opts = CString::new("-cl-kernel-arg-info").unwrap_or_default();
        let r = clBuildProgram(prog, 0, null(), opts.as_ptr(), None, null_mut());
        let mut log = vec![0u8; 1 << 16];
        clGetProgramBuildInfo(
            prog,
            device_id(),
            CL_PROGRAM_BUILD_LOG,
            log.len(),
            log.as_mut_ptr().cast(),
            null_mut(),
        );
        assert_eq!(r, CL_SUCCESS, "{}", String::from_utf8_lossy(&log));
        let mut names = [0u8; 64];
        assert_eq!(
            clGetProgramInfo(
                prog,
                CL_PROGRAM_KERNEL_NAMES,
                64,
                names.as_mut_ptr().cast(),
                null_mut()
            ),
            CL_SUCCESS
        );
        assert_eq!(&names[..5], b"axpy\0");
        run_axpy(&e, prog, false);
        // Argument information as written in the source (-cl-kernel-arg-info).
        let name = CString::new("axpy").unwrap_or_default();
        let k = clCreateKernel(prog, name.as_ptr(), &mut err);
        assert_eq!(err, CL_SUCCESS);
        let mut q: cl_kernel_arg_type_qualifier = 99;
        assert_eq!(
            clGetKernelArgInfo(
                k,
                0,
                CL_KERNEL_ARG_TYPE_QUALIFIER,
                8,
                (&mut q as *mut u64).cast(),
                null_mut()
            ),
            CL_SUCCESS
        );
        assert_eq!(q, CL_KERNEL_ARG_TYPE_CONST);
        let mut tn = [0u8; 32];
        let mut len = 0usize;
        assert_eq!(
            clGetKernelArgInfo(
                k,
                0,
                CL_KERNEL_ARG_TYPE_NAME,
                32,
                tn.as_mut_ptr().cast(),
                &mut len
            ),
            CL_SUCCESS
        );
        assert_eq!(&tn[..len], b"float*\0");
        let mut an = [0u8; 8];
        assert_eq!(
            clGetKernelArgInfo(
                k,
                2,
                CL_KERNEL_ARG_NAME,
                8,
                an.as_mut_ptr().cast(),
                &mut len
            ),
            CL_SUCCESS
        );
        assert_eq!(&an[..len], b"a\0");
        let mut aq: cl_kernel_arg_address_qualifier = 0;
        assert_eq!(
            clGetKernelArgInfo(
                k,
                1,
                CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                4,
                (&mut aq as *mut u32).cast(),
                null_mut()
            ),
            CL_SUCCESS
        );
        assert_eq!(aq, CL_KERNEL_ARG_ADDRESS_GLOBAL);
        assert_eq!(clReleaseKernel(k), CL_SUCCESS);
        // A broken source fails with a log.
        let bad = CString::new("__kernel void f( {").unwrap_or_default();
        let bp = bad.as_ptr();
        let prog2 = clCreateProgramWithSource(e.ctx, 1, &mut { bp }, null(), &mut err);
        assert_eq!(
            clBuildProgram(prog2, 0, null(), null(), None, null_mut()),
            CL_BUILD_PROGRAM_FAILURE
        );
        let mut status: cl_build_status = 0;
        clGetProgramBuildInfo(
            prog2,
            device_id(),
            CL_PROGRAM_BUILD_STATUS,
            4,
            (&mut status as *mut cl_build_status).cast(),
            null_mut(),
        );
        assert_eq!(status, CL_BUILD_ERROR);
        for p in [prog, prog2] {
            assert_eq!(clReleaseProgram(p), CL_SUCCESS);
        }
        assert_eq!(clReleaseCommandQueue(e.q), CL_SUCCESS);
        assert_eq!(clReleaseContext(e.ctx), CL_SUCCESS);
    }
}

#[test]
fn spirv_program_and_its_binary_run() {
    if !have_compiler() {
        eprintln!("clang-15 not installed: skipping (ci/setup installs it)");
        return;
    }
    let req = shadowcl::compiler::CompileRequest {
        sources: vec![SRC.to_owned()],
        options: "-cl-opt-disable".to_owned(),
        headers: Vec::new(),
    };
    let spirv = match shadowcl::compiler::Compiler::new().compile(&req) {
        Ok(c) => c.spirv,
        Err(f) => panic!("compile failed: {f}"),
    };
    let e = env();
    let mut err = 0;
    // SAFETY: valid arguments.
    unsafe {
        assert!(clCreateProgramWithIL(
            e.ctx,
            b"not spir-v at all!!!".as_ptr().cast(),
            20,
            &mut err
        )
        .is_null());
        assert_eq!(err, CL_INVALID_VALUE);
        let prog = clCreateProgramWithIL(e.ctx, spirv.as_ptr().cast(), spirv.len(), &mut err);
        assert_eq!(err, CL_SUCCESS);
        assert_eq!(
            clBuildProgram(prog, 0, null(), null(), None, null_mut()),
            CL_SUCCESS
        );
        run_axpy(&e, prog, true);
        // CL_PROGRAM_BINARIES round-trips through clCreateProgramWithBinary.
        let mut size = 0usize;
        assert_eq!(
            clGetProgramInfo(
                prog,
                CL_PROGRAM_BINARY_SIZES,
                8,
                (&mut size as *mut usize).cast(),
                null_mut()
            ),
            CL_SUCCESS
        );
        let mut bin = vec![0u8; size];
        let mut bp = bin.as_mut_ptr();
        assert_eq!(
            clGetProgramInfo(
                prog,
                CL_PROGRAM_BINARIES,
                8,
                (&mut bp as *mut *mut u8).cast(),
                null_mut()
            ),
            CL_SUCCESS
        );
        let d = device_id();
        let mut status = 1;
        let mut cp = bin.as_ptr();
        let prog2 = clCreateProgramWithBinary(e.ctx, 1, &d, &size, &mut cp, &mut status, &mut err);
        assert_eq!((err, status), (CL_SUCCESS, CL_SUCCESS));
        assert_eq!(
            clBuildProgram(prog2, 1, &d, null(), None, null_mut()),
            CL_SUCCESS
        );
        run_axpy(&e, prog2, true);
        for p in [prog, prog2] {
            assert_eq!(clReleaseProgram(p), CL_SUCCESS);
        }
        assert_eq!(clReleaseCommandQueue(e.q), CL_SUCCESS);
        assert_eq!(clReleaseContext(e.ctx), CL_SUCCESS);
    }
}

/// A kernel the application released no longer blocks a rebuild of its program, even while a
/// queued command still holds it (piglit `cl-api-create-program-with-binary` releases the
/// kernel right after enqueueing it, then rebuilds); a kernel the application holds does.
#[test]
fn released_kernels_do_not_block_a_rebuild() {
    if !have_compiler() {
        eprintln!("clang-15 not installed: skipping (ci/setup installs it)");
        return;
    }
    let e = env();
    let src = CString::new("kernel void k() { }").unwrap_or_default();
    let name = CString::new("k").unwrap_or_default();
    let mut err = 0;
    // SAFETY: valid arguments; every handle is live where it is used.
    unsafe {
        let mut sp = src.as_ptr();
        let prog = clCreateProgramWithSource(e.ctx, 1, &mut sp, null(), &mut err);
        assert_eq!(err, CL_SUCCESS);
        assert_eq!(
            clBuildProgram(prog, 0, null(), null(), None, null_mut()),
            CL_SUCCESS
        );
        let held = clCreateKernel(prog, name.as_ptr(), &mut err);
        assert_eq!(err, CL_SUCCESS);
        assert_eq!(
            clBuildProgram(prog, 0, null(), null(), None, null_mut()),
            CL_INVALID_OPERATION
        );
        assert_eq!(clReleaseKernel(held), CL_SUCCESS);

        // The command waits on a user event, so it keeps its kernel past clReleaseKernel.
        let gate = clCreateUserEvent(e.ctx, &mut err);
        assert_eq!(err, CL_SUCCESS);
        let k = clCreateKernel(prog, name.as_ptr(), &mut err);
        assert_eq!(err, CL_SUCCESS);
        let global = 1usize;
        let mut done: cl_event = null_mut();
        assert_eq!(
            clEnqueueNDRangeKernel(e.q, k, 1, null(), &global, null(), 1, &gate, &mut done),
            CL_SUCCESS
        );
        assert_eq!(clReleaseKernel(k), CL_SUCCESS);
        assert_eq!(
            clBuildProgram(prog, 0, null(), null(), None, null_mut()),
            CL_SUCCESS
        );
        assert_eq!(
            clSetUserEventStatus(gate, CL_COMPLETE as cl_int),
            CL_SUCCESS
        );
        assert_eq!(clWaitForEvents(1, &done), CL_SUCCESS);
        let mut status: cl_int = 1;
        assert_eq!(
            clGetEventInfo(
                done,
                CL_EVENT_COMMAND_EXECUTION_STATUS,
                4,
                (&mut status as *mut cl_int).cast(),
                null_mut()
            ),
            CL_SUCCESS
        );
        assert_eq!(status, CL_COMPLETE as cl_int);
        for ev in [gate, done] {
            assert_eq!(clReleaseEvent(ev), CL_SUCCESS);
        }
        assert_eq!(clReleaseProgram(prog), CL_SUCCESS);
        assert_eq!(clReleaseCommandQueue(e.q), CL_SUCCESS);
        assert_eq!(clReleaseContext(e.ctx), CL_SUCCESS);
    }
}
