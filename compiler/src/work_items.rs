//! Work-item queries are not convergent.
//!
//! clang marks every OpenCL C function `convergent`, the work-item functions of OpenCL C
//! 6.15.1 (`get_global_id` and the rest) too, though they only read the work-item's own
//! coordinates. LLVM then keeps such a call inside a loop, so a loop bounded by one
//! (`for (i = 0; i < get_global_id(0); i++) {}`) has no trip count it can see and stays,
//! however empty: 2^20 work-items spinning up to 2^20 times each, where a device compiler
//! that knows its builtins deletes the loop. The checked build optimises after this rewrite,
//! so it gives their declarations and calls attribute groups without `convergent`; calls of
//! anything else keep theirs.

/// The work-item functions whose calls only read the work-item's coordinates.
const QUERIES: [&str; 17] = [
    "get_work_dim",
    "get_global_size",
    "get_global_id",
    "get_local_size",
    "get_enqueued_local_size",
    "get_local_id",
    "get_num_groups",
    "get_group_id",
    "get_global_offset",
    "get_global_linear_id",
    "get_local_linear_id",
    "get_sub_group_size",
    "get_max_sub_group_size",
    "get_num_sub_groups",
    "get_enqueued_num_sub_groups",
    "get_sub_group_id",
    "get_sub_group_local_id",
];

/// Textual LLVM IR with the work-item queries' declarations and calls moved to attribute
/// groups like theirs without `convergent` (appended after the module's own).
pub fn not_convergent(ir: &str) -> String {
    let mut lines: Vec<String> = ir.split_inclusive('\n').map(str::to_string).collect();
    let groups: Vec<(u32, String)> = lines.iter().filter_map(|l| group(l)).collect();
    let Some(next) = groups.iter().map(|(id, _)| id + 1).max() else {
        return ir.to_string();
    };
    // Old group -> its copy without `convergent`, numbered from `next` on.
    let mut copies: Vec<(u32, u32, String)> = Vec::new();
    for line in lines.iter_mut() {
        let Some(at) = query_group_at(line) else {
            continue;
        };
        let old: u32 = match line[at + 1..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|d| d.parse().ok())
        {
            Some(id) => id,
            None => continue,
        };
        let Some((_, body)) = groups.iter().find(|(id, _)| *id == old) else {
            continue;
        };
        if !body.split_whitespace().any(|w| w == "convergent") {
            continue;
        }
        let new = match copies.iter().find(|(o, _, _)| *o == old) {
            Some((_, n, _)) => *n,
            None => {
                let n = next + copies.len() as u32;
                let kept: Vec<&str> = body
                    .split_whitespace()
                    .filter(|w| *w != "convergent")
                    .collect();
                copies.push((old, n, kept.join(" ")));
                n
            }
        };
        let digits = old.to_string().len();
        line.replace_range(at..at + 1 + digits, &format!("#{new}"));
    }
    let mut out: String = lines.concat();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    for (_, n, body) in copies {
        out.push_str(&format!("attributes #{n} = {{ {body} }}\n"));
    }
    out
}

/// `attributes #N = { body }`: N and body.
fn group(line: &str) -> Option<(u32, String)> {
    let rest = line.trim().strip_prefix("attributes #")?;
    let (id, body) = rest.split_once(" = {")?;
    let body = body.trim_end().strip_suffix('}')?;
    Some((id.parse().ok()?, body.trim().to_string()))
}

/// Where, in a `declare` or a call of a work-item query, the `#N` of its function
/// attributes starts (after the argument list).
fn query_group_at(line: &str) -> Option<usize> {
    let body = line.trim_start();
    if !body.starts_with("declare ") && !body.contains("call ") {
        return None;
    }
    let name_at = QUERIES.iter().find_map(|q| {
        let mangled = format!("@_Z{}{q}", q.len());
        let at = line.find(&mangled)? + mangled.len();
        // `j` (uint) or `v` (no argument), then the argument list.
        matches!(&line.as_bytes()[at..], [b'j' | b'v', b'(', ..]).then_some(at + 1)
    })?;
    let close = name_at + crate::faithful::matching_close(&line[name_at..])?;
    let after = &line[close..];
    // The function attributes come before any metadata (`, !dbg !7`).
    let end = after.find(", !").unwrap_or(after.len());
    after[..end].rfind(" #").map(|i| close + i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const IR: &str = "define spir_kernel void @k() #0 {
  %1 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #2, !dbg !9
  call spir_func void @_Z7barrierj(i32 noundef 1) #2
  %2 = call spir_func i32 @_Z12get_work_dimv() #3
  ret void
}
declare spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1
declare spir_func void @_Z7barrierj(i32 noundef) #1
attributes #0 = { convergent nounwind }
attributes #1 = { convergent mustprogress nounwind readnone willreturn }
attributes #2 = { convergent nounwind readnone willreturn }
attributes #3 = { nounwind readnone }
";

    #[test]
    fn queries_lose_convergent_and_nothing_else_does() {
        let out = not_convergent(IR);
        let line = |needle: &str| out.lines().find(|l| l.contains(needle)).unwrap();
        assert!(
            line("= tail call spir_func i64 @_Z13get").ends_with("#4, !dbg !9"),
            "{out}"
        );
        assert!(
            line("declare spir_func i64 @_Z13get").ends_with("#5"),
            "{out}"
        );
        // The barrier keeps its convergent groups; a group without it is left as it is.
        assert!(
            line("call spir_func void @_Z7barrier").ends_with("#2"),
            "{out}"
        );
        assert!(
            line("declare spir_func void @_Z7barrier").ends_with("#1"),
            "{out}"
        );
        assert!(line("@_Z12get_work_dimv").ends_with("#3"), "{out}");
        assert!(
            out.contains("attributes #4 = { nounwind readnone willreturn }\n"),
            "{out}"
        );
        assert!(
            out.contains("attributes #5 = { mustprogress nounwind readnone willreturn }\n"),
            "{out}"
        );
        assert!(out.contains("attributes #2 = { convergent nounwind readnone willreturn }"));
    }
}
