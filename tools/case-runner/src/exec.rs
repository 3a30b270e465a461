//! Runs one parsed case on an OpenCL platform through the ICD loader.

use crate::case::{Arg, Case, HostCommand, Launch};
use crate::ffi::*;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};

pub struct Output {
    pub platform: String,
    pub device: String,
    /// (name, element type, bytes) of every buffer not released before the launch.
    pub buffers: Vec<(String, String, Vec<u8>)>,
    /// Warnings the run produced (e.g. an enqueue refused after a release).
    pub notes: Vec<String>,
}

pub enum RunError {
    /// The case cannot run on this device (e.g. `requires: fp64`).
    Skip(String),
    Fail(String),
}

fn check(code: cl_int, what: &str) -> Result<(), RunError> {
    if code == CL_SUCCESS {
        Ok(())
    } else {
        Err(RunError::Fail(format!(
            "{what} failed: {} ({code})",
            err_name(code)
        )))
    }
}

pub fn err_name(code: cl_int) -> &'static str {
    match code {
        -1 => "CL_DEVICE_NOT_FOUND",
        -4 => "CL_MEM_OBJECT_ALLOCATION_FAILURE",
        -5 => "CL_OUT_OF_RESOURCES",
        -6 => "CL_OUT_OF_HOST_MEMORY",
        -11 => "CL_BUILD_PROGRAM_FAILURE",
        -30 => "CL_INVALID_VALUE",
        -32 => "CL_INVALID_PLATFORM",
        -33 => "CL_INVALID_DEVICE",
        -34 => "CL_INVALID_CONTEXT",
        -36 => "CL_INVALID_COMMAND_QUEUE",
        -38 => "CL_INVALID_MEM_OBJECT",
        -43 => "CL_INVALID_BUILD_OPTIONS",
        -44 => "CL_INVALID_PROGRAM",
        -45 => "CL_INVALID_PROGRAM_EXECUTABLE",
        -46 => "CL_INVALID_KERNEL_NAME",
        -48 => "CL_INVALID_KERNEL",
        -49 => "CL_INVALID_ARG_INDEX",
        -50 => "CL_INVALID_ARG_VALUE",
        -51 => "CL_INVALID_ARG_SIZE",
        -52 => "CL_INVALID_KERNEL_ARGS",
        -53 => "CL_INVALID_WORK_DIMENSION",
        -54 => "CL_INVALID_WORK_GROUP_SIZE",
        -55 => "CL_INVALID_WORK_ITEM_SIZE",
        -56 => "CL_INVALID_GLOBAL_OFFSET",
        -57 => "CL_INVALID_EVENT_WAIT_LIST",
        -1001 => "CL_PLATFORM_NOT_FOUND_KHR",
        _ => "error",
    }
}

fn platform_name(p: cl_platform_id) -> String {
    let mut buf = vec![0u8; 1024];
    let mut len = 0usize;
    // SAFETY: buffer and size are consistent.
    let rc = unsafe {
        clGetPlatformInfo(
            p,
            CL_PLATFORM_NAME,
            buf.len(),
            buf.as_mut_ptr() as *mut c_void,
            &mut len,
        )
    };
    if rc != CL_SUCCESS {
        return String::new();
    }
    cstr(&buf[..len.min(buf.len())])
}

fn device_info(d: cl_device_id, param: cl_uint) -> String {
    let mut len = 0usize;
    // SAFETY: size query then read into a buffer of that size.
    unsafe {
        if clGetDeviceInfo(d, param, 0, null_mut(), &mut len) != CL_SUCCESS {
            return String::new();
        }
        let mut buf = vec![0u8; len];
        if clGetDeviceInfo(d, param, len, buf.as_mut_ptr() as *mut c_void, null_mut()) != CL_SUCCESS
        {
            return String::new();
        }
        cstr(&buf)
    }
}

fn cstr(b: &[u8]) -> String {
    let end = b.iter().position(|c| *c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// Names of all platforms the ICD loader sees.
pub fn platforms() -> Vec<(cl_platform_id, String)> {
    let mut n: cl_uint = 0;
    // SAFETY: standard two-call pattern.
    unsafe {
        if clGetPlatformIDs(0, null_mut(), &mut n) != CL_SUCCESS || n == 0 {
            return Vec::new();
        }
        let mut ids = vec![null_mut(); n as usize];
        if clGetPlatformIDs(n, ids.as_mut_ptr(), null_mut()) != CL_SUCCESS {
            return Vec::new();
        }
        ids.into_iter().map(|p| (p, platform_name(p))).collect()
    }
}

pub fn run(case: &Case, platform: &str, options: &str) -> Result<Output, RunError> {
    let all = platforms();
    let want = platform.to_lowercase();
    let Some((pid, pname)) = all
        .iter()
        .find(|(_, n)| n.to_lowercase().contains(&want))
        .cloned()
    else {
        let names: Vec<&str> = all.iter().map(|(_, n)| n.as_str()).collect();
        return Err(RunError::Fail(format!(
            "no platform whose name contains `{platform}` (the ICD loader sees: {}; set OCL_ICD_VENDORS)",
            if names.is_empty() { "none".to_string() } else { names.join(", ") }
        )));
    };
    // SAFETY: all handles come from the runtime and are used per the OpenCL spec; sizes
    // passed with pointers match the buffers they describe.
    unsafe {
        let mut dev: cl_device_id = null_mut();
        let mut ndev: cl_uint = 0;
        check(
            clGetDeviceIDs(pid, CL_DEVICE_TYPE_ALL, 1, &mut dev, &mut ndev),
            "clGetDeviceIDs",
        )?;
        let dname = device_info(dev, CL_DEVICE_NAME);
        let exts = device_info(dev, CL_DEVICE_EXTENSIONS);
        for r in &case.requires {
            let ok = match r.as_str() {
                "fp64" => exts.contains("cl_khr_fp64"),
                other => exts.contains(other),
            };
            if !ok {
                return Err(RunError::Skip(format!("device `{dname}` lacks {r}")));
            }
        }
        let mut err: cl_int = 0;
        let ctx = clCreateContext(null(), 1, &dev, null(), null_mut(), &mut err);
        check(err, "clCreateContext")?;
        let props = if case.out_of_order {
            CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
        } else {
            0
        };
        let mut queues = Vec::new();
        for _ in 0..case.queues {
            let q = clCreateCommandQueue(ctx, dev, props, &mut err);
            check(err, "clCreateCommandQueue")?;
            queues.push(q);
        }
        let q = queues[0];

        let prog = build_program(ctx, dev, case, options)?;

        let mems = create_buffers(ctx, q, case)?;
        if !case.release_before_launch.is_empty() {
            // Writes above were blocking; make sure nothing is pending before releasing.
            check(clFinish(q), "clFinish")?;
        }

        let mut notes = Vec::new();
        let mut events: Vec<cl_event> = Vec::new();
        let mut kernels = Vec::new();
        let mut samplers = Vec::new();
        // Host memory of the host commands, alive until every queue finished.
        let mut host_memory: Vec<Vec<u8>> = Vec::new();
        for (li, l) in case.launches.iter().enumerate() {
            if let Some(c) = &l.command {
                if l.host_wait {
                    for &q in &queues {
                        check(clFinish(q), "clFinish")?;
                    }
                }
                let wait: Vec<cl_event> = l.after.iter().map(|a| events[*a]).collect();
                let ev =
                    enqueue_host_command(queues[l.on], case, c, &mems, &wait, &mut host_memory)?;
                events.push(ev);
                continue;
            }
            let kname = CString::new(l.kernel.clone())
                .map_err(|_| RunError::Fail("kernel name contains a NUL byte".into()))?;
            let k = clCreateKernel(prog, kname.as_ptr(), &mut err);
            check(err, &format!("clCreateKernel({})", l.kernel))?;
            kernels.push(k);
            set_args(ctx, k, l, &mems, &mut samplers)?;
            if li == 0 {
                for bi in &case.release_before_launch {
                    check(clReleaseMemObject(mems[*bi]), "clReleaseMemObject")?;
                }
            }
            if l.host_wait {
                for &q in &queues {
                    check(clFinish(q), "clFinish")?;
                }
            }
            let wait: Vec<cl_event> = l.after.iter().map(|a| events[*a]).collect();
            let mut ev: cl_event = null_mut();
            let dims = l.global.len() as cl_uint;
            let local_ptr = l.local.as_ref().map(|v| v.as_ptr()).unwrap_or(null());
            let off_ptr = l.offset.as_ref().map(|v| v.as_ptr()).unwrap_or(null());
            let rc = clEnqueueNDRangeKernel(
                queues[l.on],
                k,
                dims,
                off_ptr,
                l.global.as_ptr(),
                local_ptr,
                wait.len() as cl_uint,
                if wait.is_empty() {
                    null()
                } else {
                    wait.as_ptr()
                },
                &mut ev,
            );
            if rc != CL_SUCCESS && !case.release_before_launch.is_empty() {
                // A platform may refuse a launch whose buffer was released: that is a
                // legitimate way to report use-after-release.
                notes.push(format!(
                    "clEnqueueNDRangeKernel({}) refused after release: {} ({rc})",
                    l.kernel,
                    err_name(rc)
                ));
                ev = null_mut();
            } else {
                check(rc, &format!("clEnqueueNDRangeKernel({})", l.kernel))?;
            }
            events.push(ev);
        }
        for &q in &queues {
            check(clFinish(q), "clFinish")?;
        }

        let buffers = read_buffers(q, case, &mems)?;
        for e in events.into_iter().filter(|e| !e.is_null()) {
            clReleaseEvent(e);
        }
        for k in kernels {
            clReleaseKernel(k);
        }
        for s in samplers {
            clReleaseSampler(s);
        }
        clReleaseProgram(prog);
        for &q in &queues {
            clReleaseCommandQueue(q);
        }
        clReleaseContext(ctx);
        Ok(Output {
            platform: pname,
            device: dname,
            buffers,
            notes,
        })
    }
}

/// Enqueues host command `c` (non-blocking) on `q` after the events `wait`; its host memory
/// goes into `host_memory`, which the caller keeps until the queues finished.
///
/// # Safety
/// `q` and `mems` are live objects of one context; `wait` holds live events.
unsafe fn enqueue_host_command(
    q: cl_command_queue,
    case: &Case,
    c: &HostCommand,
    mems: &[cl_mem],
    wait: &[cl_event],
    host_memory: &mut Vec<Vec<u8>>,
) -> Result<cl_event, RunError> {
    let (n, w) = (
        wait.len() as cl_uint,
        if wait.is_empty() {
            null()
        } else {
            wait.as_ptr()
        },
    );
    let mut ev: cl_event = null_mut();
    let (rc, what) = match *c {
        HostCommand::Read(b) => {
            let mut host = vec![0u8; case.buffers[b].bytes()];
            let (p, len) = (host.as_mut_ptr(), host.len());
            host_memory.push(host);
            match case.buffers[b].image {
                Some(region) => {
                    let origin = [0usize; 3];
                    let (o, r) = (origin.as_ptr(), region.as_ptr());
                    let rc = clEnqueueReadImage(q, mems[b], 0, o, r, 0, 0, p.cast(), n, w, &mut ev);
                    (rc, "clEnqueueReadImage")
                }
                None => {
                    let rc = clEnqueueReadBuffer(q, mems[b], 0, 0, len, p.cast(), n, w, &mut ev);
                    (rc, "clEnqueueReadBuffer")
                }
            }
        }
        HostCommand::Write(b) => {
            let d = &case.buffers[b];
            let host = d
                .initial()
                .map_err(RunError::Fail)?
                .unwrap_or_else(|| vec![0; d.bytes()]);
            let (p, len) = (host.as_ptr(), host.len());
            host_memory.push(host);
            match d.image {
                Some(region) => {
                    let origin = [0usize; 3];
                    let (o, r) = (origin.as_ptr(), region.as_ptr());
                    let rc =
                        clEnqueueWriteImage(q, mems[b], 0, o, r, 0, 0, p.cast(), n, w, &mut ev);
                    (rc, "clEnqueueWriteImage")
                }
                None => {
                    let rc = clEnqueueWriteBuffer(q, mems[b], 0, 0, len, p.cast(), n, w, &mut ev);
                    (rc, "clEnqueueWriteBuffer")
                }
            }
        }
        HostCommand::Copy(s, d) => {
            let len = case.buffers[s].bytes();
            let rc = clEnqueueCopyBuffer(q, mems[s], mems[d], 0, 0, len, n, w, &mut ev);
            (rc, "clEnqueueCopyBuffer")
        }
        HostCommand::MapUnmap(b) => {
            let len = case.buffers[b].bytes();
            let (mut map_ev, mut err) = (null_mut(), 0);
            // CL_MAP_READ | CL_MAP_WRITE
            let p = clEnqueueMapBuffer(q, mems[b], 0, 0b11, 0, len, n, w, &mut map_ev, &mut err);
            check(err, "clEnqueueMapBuffer")?;
            let rc = clEnqueueUnmapMemObject(q, mems[b], p, 1, &map_ev, &mut ev);
            clReleaseEvent(map_ev);
            (rc, "clEnqueueUnmapMemObject")
        }
        HostCommand::Fill(b) => {
            let zero = 0u8;
            let len = case.buffers[b].bytes();
            let p = (&zero as *const u8).cast();
            let rc = clEnqueueFillBuffer(q, mems[b], p, 1, 0, len, n, w, &mut ev);
            (rc, "clEnqueueFillBuffer")
        }
    };
    check(rc, what)?;
    Ok(ev)
}

/// Builds the case's source with its options and `options`; a failed build gives its log.
///
/// # Safety
/// `ctx` and `dev` are live objects of one context.
unsafe fn build_program(
    ctx: cl_context,
    dev: cl_device_id,
    case: &Case,
    options: &str,
) -> Result<cl_program, RunError> {
    let mut err: cl_int = 0;
    let src = CString::new(case.source.clone())
        .map_err(|_| RunError::Fail("source contains a NUL byte".into()))?;
    let sp = src.as_ptr();
    let prog = clCreateProgramWithSource(ctx, 1, &sp, null(), &mut err);
    check(err, "clCreateProgramWithSource")?;
    let opts = format!("{} {}", case.options, options);
    let copts = CString::new(opts.trim())
        .map_err(|_| RunError::Fail("options contain a NUL byte".into()))?;
    let rc = clBuildProgram(prog, 1, &dev, copts.as_ptr(), null(), null_mut());
    if rc != CL_SUCCESS {
        let mut len = 0usize;
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, null_mut(), &mut len);
        let mut log = vec![0u8; len.max(1)];
        clGetProgramBuildInfo(
            prog,
            dev,
            CL_PROGRAM_BUILD_LOG,
            log.len(),
            log.as_mut_ptr() as *mut c_void,
            null_mut(),
        );
        return Err(RunError::Fail(format!(
            "clBuildProgram (options `{}`) failed: {} ({rc})\n{}",
            opts.trim(),
            err_name(rc),
            cstr(&log)
        )));
    }
    Ok(prog)
}

/// The case's buffers and images, with their initial contents written.
///
/// # Safety
/// `ctx` and `q` are live objects of one context.
unsafe fn create_buffers(
    ctx: cl_context,
    q: cl_command_queue,
    case: &Case,
) -> Result<Vec<cl_mem>, RunError> {
    let mut err: cl_int = 0;
    let mut mems: Vec<cl_mem> = Vec::new();
    for b in &case.buffers {
        let init = b
            .initial()
            .map_err(|e| RunError::Fail(format!("buffer {}: {e}", b.name)))?;
        if let Some(size) = b.image {
            let m = create_image(ctx, q, b, size, init.as_deref())?;
            mems.push(m);
            continue;
        }
        if let Some(sub) = b.sub {
            // `cl_buffer_region`: origin and size in bytes.
            let region = [sub.offset * b.elem.size(), b.bytes()];
            let m = clCreateSubBuffer(
                mems[sub.parent],
                mem_flags(b.access),
                CL_BUFFER_CREATE_TYPE_REGION,
                region.as_ptr() as *const c_void,
                &mut err,
            );
            check(err, &format!("clCreateSubBuffer({})", b.name))?;
            mems.push(m);
            continue;
        }
        let m = clCreateBuffer(
            ctx,
            mem_flags(b.access),
            b.bytes().max(1),
            null_mut(),
            &mut err,
        );
        check(err, &format!("clCreateBuffer({})", b.name))?;
        if let Some(data) = init {
            check(
                clEnqueueWriteBuffer(
                    q,
                    m,
                    CL_TRUE,
                    0,
                    data.len(),
                    data.as_ptr() as *const c_void,
                    0,
                    null(),
                    null_mut(),
                ),
                &format!("clEnqueueWriteBuffer({})", b.name),
            )?;
        }
        mems.push(m);
    }
    Ok(mems)
}

/// Sets kernel `k`'s arguments as launch `l` declares them (samplers are created here and
/// kept in `samplers` for release).
///
/// # Safety
/// `ctx` and `k` are live objects of one context, `mems` the case's buffers in it.
unsafe fn set_args(
    ctx: cl_context,
    k: cl_kernel,
    l: &Launch,
    mems: &[cl_mem],
    samplers: &mut Vec<cl_sampler>,
) -> Result<(), RunError> {
    let mut err: cl_int = 0;
    for (ai, a) in l.args.iter().enumerate() {
        let rc = match a {
            &Arg::Sampler {
                normalized,
                addressing,
                filter,
            } => {
                let s = clCreateSampler(ctx, normalized as cl_uint, addressing, filter, &mut err);
                check(err, "clCreateSampler")?;
                samplers.push(s);
                clSetKernelArg(
                    k,
                    ai as cl_uint,
                    std::mem::size_of::<cl_sampler>(),
                    &s as *const cl_sampler as *const c_void,
                )
            }
            Arg::Buffer(bi) => clSetKernelArg(
                k,
                ai as cl_uint,
                std::mem::size_of::<cl_mem>(),
                &mems[*bi] as *const cl_mem as *const c_void,
            ),
            Arg::Local(bytes) => clSetKernelArg(k, ai as cl_uint, *bytes, null()),
            Arg::Scalar(bytes) => clSetKernelArg(
                k,
                ai as cl_uint,
                bytes.len(),
                bytes.as_ptr() as *const c_void,
            ),
        };
        check(rc, &format!("clSetKernelArg({}, {ai})", l.kernel))?;
    }
    Ok(())
}

/// Reads back every buffer not released before the launch (and releases it).
///
/// # Safety
/// `q` is a live queue of the context of `mems`, the case's buffers.
unsafe fn read_buffers(
    q: cl_command_queue,
    case: &Case,
    mems: &[cl_mem],
) -> Result<Vec<(String, String, Vec<u8>)>, RunError> {
    let mut buffers = Vec::new();
    for (bi, b) in case.buffers.iter().enumerate() {
        if case.release_before_launch.contains(&bi) {
            continue;
        }
        let mut data = vec![0u8; b.bytes()];
        if let Some(region) = b.image {
            let origin = [0usize; 3];
            check(
                clEnqueueReadImage(
                    q,
                    mems[bi],
                    CL_TRUE,
                    origin.as_ptr(),
                    region.as_ptr(),
                    0,
                    0,
                    data.as_mut_ptr() as *mut c_void,
                    0,
                    null(),
                    null_mut(),
                ),
                &format!("clEnqueueReadImage({})", b.name),
            )?;
        } else if !data.is_empty() {
            check(
                clEnqueueReadBuffer(
                    q,
                    mems[bi],
                    CL_TRUE,
                    0,
                    data.len(),
                    data.as_mut_ptr() as *mut c_void,
                    0,
                    null(),
                    null_mut(),
                ),
                &format!("clEnqueueReadBuffer({})", b.name),
            )?;
        }
        buffers.push((b.name.clone(), b.elem.name().to_string(), data));
        clReleaseMemObject(mems[bi]);
    }
    Ok(buffers)
}

/// An RGBA image of `b`'s channel type, filled with `init` when given.
///
/// # Safety
/// `ctx` and `q` are live objects of one context.
unsafe fn create_image(
    ctx: cl_context,
    q: cl_command_queue,
    b: &crate::case::BufferDecl,
    size: [usize; 3],
    init: Option<&[u8]>,
) -> Result<cl_mem, RunError> {
    let data_type = crate::case::image_channel_type(b.elem)
        .ok_or_else(|| RunError::Fail(format!("{}: no image channel type", b.name)))?;
    let format = cl_image_format {
        order: CL_RGBA,
        data_type,
    };
    let desc = cl_image_desc {
        image_type: if size[2] > 1 {
            CL_MEM_OBJECT_IMAGE3D
        } else {
            CL_MEM_OBJECT_IMAGE2D
        },
        width: size[0],
        height: size[1],
        depth: if size[2] > 1 { size[2] } else { 0 },
        array_size: 0,
        row_pitch: 0,
        slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: null_mut(),
    };
    let mut err = 0;
    // SAFETY: format and desc are valid for the call; no host pointer.
    let m = unsafe {
        clCreateImage(
            ctx,
            mem_flags(b.access),
            &format,
            &desc,
            null_mut(),
            &mut err,
        )
    };
    check(err, &format!("clCreateImage({})", b.name))?;
    if let Some(data) = init {
        let origin = [0usize; 3];
        // SAFETY: data holds the whole image (count = w*h*d*4 channels), the write blocks.
        let rc = unsafe {
            clEnqueueWriteImage(
                q,
                m,
                CL_TRUE,
                origin.as_ptr(),
                size.as_ptr(),
                0,
                0,
                data.as_ptr() as *const c_void,
                0,
                null(),
                null_mut(),
            )
        };
        check(rc, &format!("clEnqueueWriteImage({})", b.name))?;
    }
    Ok(m)
}

/// The creation flag of a memory object kernels may use as `access` says.
fn mem_flags(access: crate::case::KernelAccess) -> cl_bitfield {
    match access {
        crate::case::KernelAccess::ReadWrite => CL_MEM_READ_WRITE,
        crate::case::KernelAccess::ReadOnly => CL_MEM_READ_ONLY,
        crate::case::KernelAccess::WriteOnly => CL_MEM_WRITE_ONLY,
    }
}
