mod common;
use common::*;
use shadowcl_interpreter::{Device, ExecError, NoObserver, Schedule};

const VADD: &str = r#"
__kernel void vadd(__global const float *a, __global const float *b, __global float *c, int n) {
    int i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}
"#;

#[test]
fn vector_add_o0_and_o2() {
    for opt in ["-O0", "-O2"] {
        let p = program(VADD, opt);
        let n = 1000;
        let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..n).map(|i| (2 * i) as f32 + 0.5).collect();
        let (ba, bb, bc) = (buf_f32(&a), buf_f32(&b), buf_f32(&vec![0.0; n]));
        let l = launch(
            "vadd",
            1,
            [1024, 1, 1],
            [64, 1, 1],
            vec![arg(&ba), arg(&bb), arg(&bc), val(n as i32)],
        );
        let st = run(&p, &l);
        assert_eq!(st.work_items, 1024);
        let c = read_f32(&bc);
        for i in 0..n {
            assert_eq!(c[i], a[i] + b[i], "{opt} element {i}");
        }
    }
}

/// Sizes whose products wrap 64 bits are refused, not run as an empty launch (issue #15).
#[test]
fn launches_too_large_to_count_are_refused() {
    let p = program(VADD, "-O2");
    let (ba, bb, bc) = (buf_f32(&[0.0]), buf_f32(&[0.0]), buf_f32(&[0.0]));
    let args = || vec![arg(&ba), arg(&bb), arg(&bc), val(0i32)];
    let refused = |global: [u64; 3], local: [u64; 3], offset: [u64; 3]| {
        let mut l = launch("vadd", 3, global, local, args());
        l.global_offset = offset;
        let r = Device::new(0).run(&p, &l, &Schedule::default(), &NoObserver);
        matches!(r, Err(ExecError::InvalidLaunch(_)))
    };
    let big = 1u64 << 40;
    assert!(
        refused([big, big, 1], [1, 1, 1], [0; 3]),
        "group count wraps"
    );
    assert!(
        refused([1 << 33, 1 << 33, 1], [1 << 33, 1 << 33, 1], [0; 3]),
        "group size wraps"
    );
    assert!(
        refused([4, 1, 1], [4, 1, 1], [u64::MAX - 1, 0, 0]),
        "global id wraps"
    );
}
