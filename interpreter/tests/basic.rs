mod common;
use common::*;

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
