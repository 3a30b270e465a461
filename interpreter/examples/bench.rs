//! Quick throughput check: `cargo run --release -p shadowcl-interpreter --example bench -- k.spv N`
//! [THREADS,...] where k.spv holds `mm(__global const float*, __global const float*, __global float*, int)`.
use std::sync::Arc;
use std::time::Instant;

use shadowcl_interpreter::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(n)) = (
        args.get(1),
        args.get(2).and_then(|n| n.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: bench K.spv N");
        std::process::exit(2);
    };
    let spv = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let p = Program::load(&spv).unwrap_or_else(|e| panic!("{e}"));
    let mk = |v: f32| -> Arc<Buffer> {
        let b = Buffer::new(n * n * 4).expect("alloc");
        let bytes: Vec<u8> = (0..n * n)
            .flat_map(|i| (v * (i % 7) as f32).to_le_bytes())
            .collect();
        b.write(0, &bytes).expect("write");
        b
    };
    let (a, b, c) = (mk(1.0), mk(2.0), mk(0.0));
    let arg = |b: &Arc<Buffer>| ArgValue::Buffer {
        buffer: b.clone(),
        offset: 0,
        size: b.len() as u64,
    };
    let l = Launch {
        kernel: "mm".into(),
        work_dim: 2,
        global_offset: [0; 3],
        global_size: [n as u64, n as u64, 1],
        local_size: [16, 16, 1],
        args: vec![
            arg(&a),
            arg(&b),
            arg(&c),
            ArgValue::Bytes((n as i32).to_le_bytes().to_vec()),
        ],
    };
    let list: Vec<usize> = match args.get(3) {
        Some(t) => t.split(',').filter_map(|x| x.parse().ok()).collect(),
        None => vec![1, 2],
    };
    for threads in list {
        let s = Schedule {
            threads,
            ..Schedule::default()
        };
        let t = Instant::now();
        let st = Device::new(0)
            .with_instruction_count()
            .run(&p, &l, &s, &NoObserver)
            .unwrap_or_else(|e| panic!("{e}"));
        let dt = t.elapsed().as_secs_f64();
        println!(
            "threads={threads}: {:.3}s, {} instructions, {:.1} M instr/s",
            dt,
            st.instructions,
            st.instructions as f64 / dt / 1e6
        );
    }
}
