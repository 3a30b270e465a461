//! Which buffer arguments a kernel never writes through (`KernelArg::never_written`): the
//! race checker trusts it to leave the records of reads of such memory alone, so every way a
//! kernel can write through a pointer must count as a write.

mod common;
use common::*;

/// `never_written` of each argument of `kernel` in `src` built with `opt`.
fn never_written(src: &str, opt: &str, kernel: &str) -> Vec<bool> {
    let p = shadowcl_interpreter::Program::load(&compile(src, opt))
        .unwrap_or_else(|e| panic!("{kernel} ({opt}): {e}"));
    let k = p
        .kernel(kernel)
        .unwrap_or_else(|| panic!("no kernel {kernel}"));
    k.args.iter().map(|a| a.never_written).collect()
}

const SRC: &str = r#"
__attribute__((noinline)) void put(__global int *p, int v) { *p = v; }
__attribute__((noinline)) int get(__global const int *p) { return *p; }

__kernel void reads(__global const int *in, __global int *out, int n) {
    int i = get_global_id(0);
    out[i] = in[i] + in[(i + 1) % n] + get(in + i);
}
__kernel void casts_const_away(__global const int *in, __global int *out) {
    int i = get_global_id(0);
    out[i] = in[i];
    ((__global int *)in)[i] = 0;
}
__kernel void helper_writes(__global const int *in, __global int *out) {
    put((__global int *)in + 1, out[0]);
}
__kernel void vector_io(__global const float *in, __global float *out) {
    int i = get_global_id(0);
    vstore4(vload4(i, in), i, out);
}
__kernel void atomic_on(__global int *counter, __global int *out) {
    out[get_global_id(0)] = atomic_add(counter, 1);
}
__kernel void second_result(__global float *in, __global float *whole) {
    int i = get_global_id(0);
    in[i] = fract(in[i], whole + i);
}
__kernel void keeps_pointer(__global int *in, __global ulong *out) {
    out[0] = (ulong)in;
}
__kernel void chooses(__global int *a, __global int *b, int which) {
    __global int *p = which ? a : b;
    p[get_global_id(0)] = 1;
}
__kernel void copies(__global const int *src, __global int *dst, __local int *tile) {
    event_t e = async_work_group_copy(tile, src, 16, 0);
    wait_group_events(1, &e);
    dst[get_local_id(0)] = tile[get_local_id(0)];
}
"#;

#[test]
fn only_pointers_every_use_of_which_reads_are_never_written() {
    let o = "-O2";
    // Loads, an index past a neighbour, a helper that only reads: never written.
    assert_eq!(never_written(SRC, o, "reads"), [true, false, false]);
    // `const` is no proof: a cast takes it away.
    assert_eq!(never_written(SRC, o, "casts_const_away"), [false, false]);
    assert_eq!(never_written(SRC, o, "helper_writes"), [false, true]);
    assert_eq!(never_written(SRC, o, "vector_io"), [true, false]);
    assert_eq!(never_written(SRC, o, "atomic_on"), [false, false]);
    // A builtin's second result is a store.
    assert_eq!(never_written(SRC, o, "second_result"), [false, false]);
    // A pointer turned into an integer may come back as a pointer.
    assert!(!never_written(SRC, o, "keeps_pointer")[0]);
    assert_eq!(never_written(SRC, o, "chooses")[..2], [false, false]);
    // An async copy's source is read; its destination here is local memory.
    assert_eq!(never_written(SRC, o, "copies")[..2], [true, false]);
}

#[test]
fn an_unoptimised_build_proves_nothing() {
    // At -O0 every argument is stored in a private variable first: the pointer escapes
    // into memory, so nothing is proven (and nothing is wrongly trusted).
    assert_eq!(
        never_written(SRC, "-cl-opt-disable", "reads"),
        [false, false, false]
    );
}

/// A kernel that reads `p` through a chain of `n` helpers, each calling the next.
fn helper_chain(n: usize) -> String {
    let mut src =
        String::from("__attribute__((noinline)) int f0(__global const int *p) { return *p; }\n");
    for k in 1..n {
        src += &format!(
            "__attribute__((noinline)) int f{k}(__global const int *p) {{ return f{}(p + 1) + {k}; }}\n",
            k - 1
        );
    }
    src += &format!(
        "__kernel void chain(__global const int *p, __global int *out) {{ out[0] = f{}(p); }}\n",
        n - 1
    );
    src
}

#[test]
fn calls_are_followed_to_a_depth_past_which_they_count_as_writes() {
    assert_eq!(
        never_written(&helper_chain(4), "-O2", "chain"),
        [true, false]
    );
    assert_eq!(
        never_written(&helper_chain(40), "-O2", "chain"),
        [false, false]
    );
}
