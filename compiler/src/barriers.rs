//! Barriers and fences whose flags are not constants.
//!
//! `barrier(flags)` with flags computed at run time is valid OpenCL C, but llvm-spirv-15
//! asserts on it: SPIR-V's OpControlBarrier takes its memory semantics as a constant. Such
//! calls become calls to `__shadowcl_barrier(flags)`, an imported function the interpreter
//! runs as a barrier whose fences each work-item passes in a register. A lone fence
//! (`mem_fence` & co.) with run-time flags orders nothing the checkers model without a
//! barrier, so it gets the constant "both fences".

/// The imported function the interpreter treats as a barrier with run-time fence flags
/// (`CLK_LOCAL_MEM_FENCE` = 1, `CLK_GLOBAL_MEM_FENCE` = 2, as in OpenCL C).
pub const DYNAMIC_BARRIER: &str = "__shadowcl_barrier";

/// Barrier builtins (mangled) whose first argument is the fence flags.
const BARRIERS: [&str; 3] = [
    "@_Z7barrierj(",
    "@_Z18work_group_barrierj(",
    "@_Z18work_group_barrierj12memory_scope(",
];

/// Fence builtins (mangled) whose first argument is the fence flags.
const FENCES: [&str; 3] = [
    "@_Z9mem_fencej(",
    "@_Z14read_mem_fencej(",
    "@_Z15write_mem_fencej(",
];

/// Rewrites calls with non-constant flags in textual LLVM IR as the module doc says.
pub fn rewrite_dynamic_flags(ir: &str) -> String {
    let mut out = String::with_capacity(ir.len());
    let mut declared = false;
    let mut used = false;
    for line in ir.split_inclusive('\n') {
        if line.starts_with("declare") && line.contains(&format!("@{DYNAMIC_BARRIER}(")) {
            declared = true;
        }
        match rewrite_call(line) {
            Some((new, barrier)) => {
                used |= barrier;
                out.push_str(&new);
            }
            None => out.push_str(line),
        }
    }
    if used && !declared {
        out.push_str(&format!(
            "\ndeclare spir_func void @{DYNAMIC_BARRIER}(i32) convergent nounwind\n"
        ));
    }
    out
}

/// The rewritten line, and whether it now calls the dynamic barrier.
fn rewrite_call(line: &str) -> Option<(String, bool)> {
    let body = line.trim_start();
    if !(body.starts_with("call ") || body.starts_with("tail call ")) {
        return None;
    }
    let (callee, barrier) = BARRIERS
        .iter()
        .map(|c| (c, true))
        .chain(FENCES.iter().map(|c| (c, false)))
        .find(|(c, _)| line.contains(**c))?;
    let open = line.find(*callee)? + callee.len();
    let close = open + line[open..].find(')')?;
    // `i32 [noundef ...] <value>`
    let arg = line[open..close].split(',').next()?.trim();
    let flags = arg.strip_prefix("i32 ")?.rsplit(' ').next()?;
    if flags.parse::<i64>().is_ok() {
        return None; // constant flags: llvm-spirv takes those
    }
    let new = if barrier {
        format!(
            "{}@{DYNAMIC_BARRIER}({arg}{}",
            &line[..line.find(*callee)?],
            &line[close..]
        )
    } else {
        let at = open + line[open..close].find(flags)?;
        format!("{}3{}", &line[..at], &line[at + flags.len()..])
    };
    Some((new, barrier))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barriers_with_run_time_flags_call_the_dynamic_barrier() {
        let ir = "define spir_kernel void @k() {\n  tail call spir_func void @_Z7barrierj(i32 noundef %5) #3, !dbg !9\n  ret void\n}\n";
        let out = rewrite_dynamic_flags(ir);
        assert!(out.contains(
            "tail call spir_func void @__shadowcl_barrier(i32 noundef %5) #3, !dbg !9\n"
        ));
        assert!(out.contains("declare spir_func void @__shadowcl_barrier(i32) convergent"));
        let scoped =
            "  call spir_func void @_Z18work_group_barrierj12memory_scope(i32 %f, i32 1)\n";
        assert_eq!(
            rewrite_dynamic_flags(scoped).lines().next(),
            Some("  call spir_func void @__shadowcl_barrier(i32 %f)")
        );
    }

    #[test]
    fn constant_flags_and_other_calls_are_left_alone() {
        for line in [
            "  call spir_func void @_Z7barrierj(i32 1) #3\n",
            "  call spir_func void @_Z7barrierj(i32 noundef 2) #3\n",
            "declare spir_func void @_Z7barrierj(i32) #2\n",
            "  %x = call spir_func i32 @_Z13get_global_idj(i32 %d)\n",
        ] {
            assert_eq!(rewrite_dynamic_flags(line), line);
        }
    }

    #[test]
    fn fences_with_run_time_flags_fence_both() {
        let line = "  call spir_func void @_Z9mem_fencej(i32 noundef %flags) #4\n";
        assert_eq!(
            rewrite_dynamic_flags(line),
            "  call spir_func void @_Z9mem_fencej(i32 noundef 3) #4\n"
        );
    }
}
