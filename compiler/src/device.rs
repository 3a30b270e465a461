//! What the device compiles for: its extensions, OpenCL C features and predefined macros.

/// The device's extensions (`CL_DEVICE_EXTENSIONS`); the driver defines exactly these macros.
pub const DEVICE_EXTENSIONS: &[&str] = &[
    "cl_khr_byte_addressable_store",
    "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics",
    "cl_khr_fp64",
    "cl_khr_fp16",
    "cl_khr_il_program",
    "cl_khr_3d_image_writes",
];
/// The OpenCL C versions the device compiles (`CL_DEVICE_OPENCL_C_ALL_VERSIONS`), as
/// (major, minor): a `-cl-std=` naming another is refused (OpenCL API 5.8.6.5). Not OpenCL C
/// 2.0: it makes pipes, device-side enqueue and sub-groups mandatory, which the device
/// does not have; OpenCL C 3.0 offers what 2.0 had as the optional features below.
pub const OPENCL_C_VERSIONS: &[(u32, u32)] = &[(1, 0), (1, 1), (1, 2), (3, 0)];

/// OpenCL C 3.0 optional features (`CL_DEVICE_OPENCL_C_FEATURES`); the compile driver
/// defines exactly these feature macros. The atomics' orders and device scope run as the
/// memory model says and the race check follows them (`CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES`
/// says the same). The work-group functions (OpenCL C 6.15.13) run as barriers that order no
/// memory (`CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT`).
pub const OPENCL_C_FEATURES: &[&str] = &[
    "__opencl_c_int64",
    "__opencl_c_fp64",
    "__opencl_c_images",
    "__opencl_c_3d_image_writes",
    "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst",
    "__opencl_c_atomic_scope_device",
    "__opencl_c_program_scope_global_variables",
    "__opencl_c_generic_address_space",
    "__opencl_c_work_group_collective_functions",
];

/// Included after clang's own OpenCL header, which defines some extension and feature
/// macros for every spir64 device whatever `-cl-ext` says.
pub(crate) const DEVICE_HEADER: &str = "shadowcl-device.h";

/// Extension and feature macros clang-15 may predefine for spir64 (its `-cl-ext` set and
/// `opencl-c-base.h`).
pub(crate) const CLANG_OPTIONAL_MACROS: &[&str] = &[
    "__opencl_c_3d_image_writes",
    "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst",
    "__opencl_c_atomic_scope_all_devices",
    "__opencl_c_atomic_scope_device",
    "__opencl_c_device_enqueue",
    "__opencl_c_ext_fp16_global_atomic_add",
    "__opencl_c_ext_fp16_global_atomic_load_store",
    "__opencl_c_ext_fp16_global_atomic_min_max",
    "__opencl_c_ext_fp16_local_atomic_add",
    "__opencl_c_ext_fp16_local_atomic_load_store",
    "__opencl_c_ext_fp16_local_atomic_min_max",
    "__opencl_c_ext_fp32_global_atomic_add",
    "__opencl_c_ext_fp32_global_atomic_min_max",
    "__opencl_c_ext_fp32_local_atomic_add",
    "__opencl_c_ext_fp32_local_atomic_min_max",
    "__opencl_c_ext_fp64_global_atomic_add",
    "__opencl_c_ext_fp64_global_atomic_min_max",
    "__opencl_c_ext_fp64_local_atomic_add",
    "__opencl_c_ext_fp64_local_atomic_min_max",
    "__opencl_c_fp64",
    "__opencl_c_generic_address_space",
    "__opencl_c_images",
    "__opencl_c_int64",
    "__opencl_c_integer_dot_product_input_4x8bit",
    "__opencl_c_integer_dot_product_input_4x8bit_packed",
    "__opencl_c_pipes",
    "__opencl_c_program_scope_global_variables",
    "__opencl_c_read_write_images",
    "__opencl_c_subgroups",
    "__opencl_c_work_group_collective_functions",
    "cl_ext_float_atomics",
    "cl_khr_3d_image_writes",
    "cl_khr_depth_images",
    "cl_khr_extended_bit_ops",
    "cl_khr_fp16",
    "cl_khr_gl_msaa_sharing",
    "cl_khr_integer_dot_product",
    "cl_khr_mipmap_image",
    "cl_khr_mipmap_image_writes",
    "cl_khr_srgb_image_writes",
    "cl_khr_subgroup_ballot",
    "cl_khr_subgroup_clustered_reduce",
    "cl_khr_subgroup_extended_types",
    "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_non_uniform_vote",
    "cl_khr_subgroup_rotate",
    "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative",
    "cl_khr_subgroups",
];

pub(crate) fn device_supports(name: &str) -> bool {
    DEVICE_EXTENSIONS.contains(&name) || OPENCL_C_FEATURES.contains(&name)
}

/// `-cl-ext=-all,+...`: the device's extensions and OpenCL C features, so clang's checks
/// (e.g. `half` arithmetic needs cl_khr_fp16) match the device.
pub(crate) fn cl_ext_option() -> String {
    let mut v = vec!["-all".to_string()];
    for name in DEVICE_EXTENSIONS
        .iter()
        .chain(OPENCL_C_FEATURES)
        .filter(|n| CLANG_OPTIONAL_MACROS.contains(n) || n.starts_with("cl_khr_"))
    {
        v.push(format!("+{name}"));
    }
    format!("-cl-ext={}", v.join(","))
}

/// The device header: `#undef` of every macro clang may define that the device lacks.
pub(crate) fn device_macros() -> String {
    let mut text = String::from("/* ShadowCL: macros of features the device lacks */\n");
    for m in CLANG_OPTIONAL_MACROS.iter().filter(|m| !device_supports(m)) {
        text.push_str(&format!("#undef {m}\n"));
    }
    text
}
