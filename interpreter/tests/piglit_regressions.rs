//! Minimal reproductions of piglit OpenCL program tests that once failed on the interpreter.
mod common;
use common::*;
use shadowcl_interpreter::*;

fn buf_i64(v: &[i64]) -> std::sync::Arc<Buffer> {
    buf_bytes(&v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
}
fn read_i64(b: &Buffer) -> Vec<i64> {
    read_bytes(b)
        .chunks(8)
        .map(|c| {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            i64::from_le_bytes(a)
        })
        .collect()
}

/// piglit calls-large-struct / calls-struct: a struct passed by value (a `ByVal` pointer
/// parameter in SPIR-V) is the callee's own copy; its writes must not reach the caller.
#[test]
fn byval_struct_parameter_is_a_private_copy() {
    let src = r#"
    typedef struct { char c; int a[8]; } S;
    __attribute__((noinline)) int callee(S s) {
        s.a[0] += 100;
        int sum = s.c;
        for (int i = 0; i < 8; ++i) sum += s.a[i];
        return sum;
    }
    __attribute__((noinline)) S modify_and_return(S s) {
        s.c += 1;
        s.a[1] += 7;
        return s;
    }
    __kernel void k(__global int *out) {
        int id = get_global_id(0);
        S s;
        s.c = 15;
        for (int i = 0; i < 8; ++i) s.a[i] = i + id;
        out[id * 5] = callee(s);
        out[id * 5 + 1] = s.a[0];
        S t = modify_and_return(s);
        out[id * 5 + 2] = s.c;
        out[id * 5 + 3] = s.a[1];
        out[id * 5 + 4] = t.c * 1000 + t.a[1];
    }"#;
    for opt in ["-O0", "-O1"] {
        let p = program(src, opt);
        let out = buf_i32(&[0; 10]);
        run(&p, &launch("k", 1, [2, 1, 1], [2, 1, 1], vec![arg(&out)]));
        let mut expect = vec![];
        for id in 0..2 {
            let sum: i32 = 15 + 100 + (0..8).map(|i| i + id).sum::<i32>();
            expect.extend([sum, id, 15, 1 + id, 16 * 1000 + 1 + id + 7]);
        }
        assert_eq!(read_i32(&out), expect, "{opt}");
    }
}

/// piglit atomic_int64_cmpxchg-local: 64-bit `atom_cmpxchg` on `__local` memory. The piglit
/// test itself binds its `__local long *mem` with `clSetKernelArg(.., sizeof(cl_mem), NULL)`
/// (8 bytes) and then uses `mem[1]`, an out-of-bounds access ShadowCL reports and contains;
/// with a large enough allocation the interpreter gives the expected values.
#[test]
fn int64_cmpxchg_on_local_memory() {
    let src = r#"
    #pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
    __kernel void k(__global long *out, __local long *mem, __global long *init,
                    __global long *cmp, __global long *val) {
        mem[0] = init[0];
        mem[1] = init[1];
        long a = atom_cmpxchg(mem, cmp[0], val[0]);
        out[0] = a;
        out[1] = *mem;
        a = atom_cmpxchg(mem + 1, cmp[1], val[1]);
        out[2] = a;
        out[3] = mem[1];
    }"#;
    for opt in ["-O0", "-O2"] {
        let p = program(src, opt);
        let out = buf_i64(&[0; 4]);
        let (init, cmp, val) = (buf_i64(&[-4, -4]), buf_i64(&[-4, 3]), buf_i64(&[5, 5]));
        let l = launch(
            "k",
            1,
            [1, 1, 1],
            [1, 1, 1],
            vec![
                arg(&out),
                ArgValue::Local(16),
                arg(&init),
                arg(&cmp),
                arg(&val),
            ],
        );
        run(&p, &l);
        assert_eq!(read_i64(&out), vec![-4, 5, -4, -4], "{opt}");
    }
}

/// piglit amdgcn-f32-inline-immediates ("add integer 64") expects `0.0f + as_float(64)` to be
/// 0 because it builds with `-cl-denorms-are-zero`. That option only *permits* flushing, and
/// the device advertises `CL_FP_DENORM` (clang-15 also drops the option for spir64, so the
/// module carries no DenormFlushToZero mode). The IEEE result, the denormal 0x40, is correct.
#[test]
fn single_precision_denormals_are_preserved() {
    let src = r#"
    __kernel void k(__global float *out, __global const float *in) {
        int id = get_global_id(0);
        out[id] = in[id] + as_float((int)64);
        out[id + 2] = in[id] * 0x1p-140f;
    }"#;
    for opt in ["-O0", "-O2"] {
        let p = program(src, opt);
        let (out, inp) = (buf_f32(&[9.0; 4]), buf_f32(&[0.0, 0.5]));
        run(
            &p,
            &launch("k", 1, [2, 1, 1], [2, 1, 1], vec![arg(&out), arg(&inp)]),
        );
        let bits: Vec<u32> = read_f32(&out).iter().map(|f| f.to_bits()).collect();
        assert_eq!(bits, vec![0x40, 0x3f00_0000, 0, 0x100], "{opt}");
    }
}
