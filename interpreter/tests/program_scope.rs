//! Program-scope data initialised with addresses (OpenCL C 2.0): llvm-spirv
//! emits the initialisers as `OpSpecConstantOp` pointer casts and access chains.

mod common;
use common::*;

#[test]
fn program_scope_pointers_point_where_their_initialisers_say() {
    let src = r#"
    struct pair { int a; int b; };
    global int table[] = {7, 42, 99};
    global struct pair two = {5, 6};
    global int *second = &table[1];
    global int *ptrs[] = {&table[2], &two.b, 0};
    constant int rows[2][2] = {{1, 2}, {3, 4}};
    global int *third;
    __kernel void read_table(__global int *out) {
        out[0] = table[0];
        out[1] = *second;
        out[2] = *ptrs[0];
        out[3] = *ptrs[1];
        out[4] = ptrs[2] == 0;
        third = second + 1;          // a pointer stored at run time keeps working too
        out[5] = *third;
        out[6] = rows[1][0];
    }"#;
    // clang optimises OpenCL C unless told not to: both builds.
    for opt in ["-cl-std=CL2.0", "-cl-std=CL2.0 -cl-opt-disable"] {
        let spirv = compile(src, opt);
        let p =
            shadowcl_interpreter::Program::load(&spirv).unwrap_or_else(|e| panic!("{opt}: {e}"));
        let out = buf_i32(&[0; 7]);
        run(
            &p,
            &launch("read_table", 1, [1, 1, 1], [1, 1, 1], vec![arg(&out)]),
        );
        assert_eq!(read_i32(&out), [7, 42, 99, 6, 1, 99, 3], "{opt}");
    }
}

/// Module-scope data is allocated when the module loads: past the limit the load fails with
/// a message (a 16 GiB program-scope array once made the process abort allocating it).
#[test]
fn huge_program_scope_data_is_refused_at_load() {
    let src = r#"
    global char big[1L << 34];
    __kernel void k(__global char *out) { out[0] = big[get_global_id(0)]; }"#;
    let spirv = compile(src, "-cl-std=CL2.0");
    let err = shadowcl_interpreter::Program::load(&spirv)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("module-scope variables of more than 256 MiB"),
        "{err}"
    );
}
