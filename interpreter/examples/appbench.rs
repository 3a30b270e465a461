//! Per-work-item overhead check with the ci/bench kernels:
//! `cargo run --release -p shadowcl-interpreter --example appbench -- k.spv APP [THREADS] [REPS] [count]`
//! where APP is vadd (2^19 items, groups of 256), reduce (2^19 items, groups of 256), stencil (512x256, 16x16) or matmul
//! (256x256, 16x16) and k.spv holds bench/bench.c's kernels. The schedule comes from the
//! SHADOWCL_* variables (e.g. SHADOWCL_QUANTUM=1 for lockstep).
use std::sync::Arc;
use std::time::Instant;

use shadowcl_interpreter::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(app)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: appbench K.spv vadd|reduce|stencil|matmul [THREADS] [REPS]");
        std::process::exit(2);
    };
    let threads: usize = args.get(3).and_then(|t| t.parse().ok()).unwrap_or(2);
    let reps: usize = args.get(4).and_then(|t| t.parse().ok()).unwrap_or(3);
    // Counting instructions slows run-to-barrier down (the platform library does not count).
    let count = args.get(5).is_some_and(|a| a == "count");
    let spv = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let p = Program::load(&spv).unwrap_or_else(|e| panic!("{e}"));
    let mk = |n: usize, v: f32| -> Arc<Buffer> {
        let b = Buffer::new(n * 4).expect("alloc");
        let bytes: Vec<u8> = (0..n)
            .flat_map(|i| (v * (i % 7) as f32).to_le_bytes())
            .collect();
        b.write(0, &bytes).expect("write");
        b
    };
    let arg = |b: &Arc<Buffer>| ArgValue::Buffer {
        buffer: b.clone(),
        offset: 0,
        size: b.len() as u64,
    };
    let int = |v: i32| ArgValue::Bytes(v.to_le_bytes().to_vec());
    let (dims, gs, ls, args): (u32, [u64; 3], [u64; 3], Vec<ArgValue>) = match app.as_str() {
        "vadd" => {
            let n = 1 << 19;
            let (a, b, c) = (mk(n, 1.0), mk(n, 2.0), mk(n, 0.0));
            (
                1,
                [n as u64, 1, 1],
                [256, 1, 1],
                vec![arg(&a), arg(&b), arg(&c)],
            )
        }
        "reduce" => {
            let n = 1 << 19;
            let (a, c) = (mk(n, 1.0), mk(n / 256, 0.0));
            let args = vec![arg(&a), arg(&c), ArgValue::Local(256 * 4)];
            (1, [n as u64, 1, 1], [256, 1, 1], args)
        }
        "stencil" => {
            let (w, h) = (512, 256);
            let (a, c) = (mk(w * h, 1.0), mk(w * h, 0.0));
            let args = vec![arg(&a), arg(&c), int(w as i32), int(h as i32)];
            (2, [w as u64, h as u64, 1], [16, 16, 1], args)
        }
        "matmul" => {
            let n = 256;
            let (a, b, c) = (mk(n * n, 1.0), mk(n * n, 2.0), mk(n * n, 0.0));
            let args = vec![arg(&a), arg(&b), arg(&c), int(n as i32)];
            (2, [n as u64, n as u64, 1], [16, 16, 1], args)
        }
        _ => panic!("unknown app {app}"),
    };
    let l = Launch {
        kernel: app.clone(),
        work_dim: dims,
        global_offset: [0; 3],
        global_size: gs,
        local_size: ls,
        args,
    };
    // SHADOWCL_QUANTUM etc. pick the schedule, as in the platform library.
    let s = Schedule {
        threads,
        ..Schedule::from_lookup(|k| std::env::var(k).ok()).0
    };
    for _ in 0..reps {
        let t = Instant::now();
        let device = Device::new(0);
        let device = if count {
            device.with_instruction_count()
        } else {
            device
        };
        let st = device
            .run(&p, &l, &s, &NoObserver)
            .unwrap_or_else(|e| panic!("{e}"));
        let dt = t.elapsed().as_secs_f64();
        println!(
            "{app} threads={threads}: {:.1} ms, {} items, {:.1} ns/item, {} instr, {:.1} M instr/s",
            dt * 1e3,
            st.work_items,
            dt * 1e9 / st.work_items as f64,
            st.instructions,
            st.instructions as f64 / dt / 1e6
        );
    }
}
