//! SPIR-V as other producers write it runs right or is refused, never run wrong: older
//! llvm-spirv (pyopencl's `add-vectors-64.spv`) declares the work-item builtins as
//! `UniformConstant` variables with `Import` linkage, not `Input` ones.

mod common;
use common::*;
use shadowcl_interpreter::*;

/// What both kinds of module start with: an OpenCL kernel module of 64-bit addresses.
const PREAMBLE: &str = "
        OpCapability Addresses
        OpCapability Linkage
        OpCapability Kernel
        OpCapability Int64
        OpMemoryModel Physical64 OpenCL
";

/// `c[i] = a[i] + b[i]` with `i` the global id, read from a builtin variable declared in
/// `storage` with `decorations` (besides its BuiltIn one).
fn vadd(storage: &str, decorations: &str) -> Vec<u8> {
    assemble(&format!(
        r#"{PREAMBLE}
        OpEntryPoint Kernel %k "add" %gid
        OpDecorate %gid BuiltIn GlobalInvocationId
        {decorations}
        %void = OpTypeVoid
        %ulong = OpTypeInt 64 0
        %uint = OpTypeInt 32 0
        %v3ulong = OpTypeVector %ulong 3
        %pv3 = OpTypePointer {storage} %v3ulong
        %pint = OpTypePointer CrossWorkgroup %uint
        %fn = OpTypeFunction %void %pint %pint %pint
        %gid = OpVariable %pv3 {storage}
        %k = OpFunction %void None %fn
        %a = OpFunctionParameter %pint
        %b = OpFunctionParameter %pint
        %c = OpFunctionParameter %pint
        %entry = OpLabel
        %g3 = OpLoad %v3ulong %gid Aligned 32
        %i = OpCompositeExtract %ulong %g3 0
        %pa = OpInBoundsPtrAccessChain %pint %a %i
        %pb = OpInBoundsPtrAccessChain %pint %b %i
        %pc = OpInBoundsPtrAccessChain %pint %c %i
        %x = OpLoad %uint %pa Aligned 4
        %y = OpLoad %uint %pb Aligned 4
        %s = OpIAdd %uint %x %y
        OpStore %pc %s Aligned 4
        OpReturn
        OpFunctionEnd
        "#
    ))
}

fn sums(module: &[u8]) -> Vec<i32> {
    let p = Program::load(module).unwrap();
    let a = buf_i32(&(0..64).collect::<Vec<_>>());
    let b = buf_i32(&(0..64).map(|i| 100 * i).collect::<Vec<_>>());
    let c = buf_i32(&[0; 64]);
    let l = launch(
        "add",
        1,
        [64, 1, 1],
        [16, 1, 1],
        vec![arg(&a), arg(&b), arg(&c)],
    );
    run(&p, &l);
    read_i32(&c)
}

#[test]
fn builtins_declared_as_imported_uniform_constants_are_the_work_items_ids() {
    let want: Vec<i32> = (0..64).map(|i| 101 * i).collect();
    assert_eq!(sums(&vadd("Input", "")), want);
    let imported = r#"OpDecorate %gid Constant
        OpDecorate %gid LinkageAttributes "__spirv_BuiltInGlobalInvocationId" Import"#;
    assert_eq!(sums(&vadd("UniformConstant", imported)), want);
}

#[test]
fn an_imported_variable_the_module_does_not_define_is_refused() {
    // Not a builtin: a variable another module would have to provide.
    let module = assemble(&format!(
        r#"{PREAMBLE}
        OpEntryPoint Kernel %k "k"
        OpDecorate %x LinkageAttributes "elsewhere" Import
        %void = OpTypeVoid
        %uint = OpTypeInt 32 0
        %px = OpTypePointer CrossWorkgroup %uint
        %fn = OpTypeFunction %void %px
        %x = OpVariable %px CrossWorkgroup
        %k = OpFunction %void None %fn
        %out = OpFunctionParameter %px
        %entry = OpLabel
        %v = OpLoad %uint %x Aligned 4
        OpStore %out %v Aligned 4
        OpReturn
        OpFunctionEnd
        "#
    ));
    let Err(err) = Program::load(&module) else {
        panic!("an import nothing defines was loaded");
    };
    assert!(err.to_string().contains("elsewhere"), "{err}");
}
