//! Source-faithful checking builds: every global, constant, local and generic memory access the
//! OpenCL C source makes survives optimisation.
//!
//! An optimiser deletes a dead store to `__local` memory or a load whose value is unused, and
//! with it the race the user wants to hear about. So the kernel that is checked is built in two
//! steps: clang emits unoptimised LLVM IR (`-O1` with the LLVM passes off), this module marks every
//! load, store and memory intrinsic whose pointer is not private `volatile`, and `opt-15`
//! then optimises as usual. LLVM never deletes, merges, duplicates away or reorders volatile
//! accesses against each other, while private variables are still promoted to registers and
//! helpers are still inlined (a `noinline` is dropped for that). The interpreter
//! treats a volatile access as a plain one.

/// SPIR address spaces whose accesses the checkers watch: global, constant, local, generic.
const WATCHED: [u32; 4] = [1, 2, 3, 4];

/// Rewrites textual LLVM IR (typed or opaque pointers) as the module doc says, after
/// narrowing accesses to components of vectors in memory when `narrow`
/// ([`narrow_components`]).
pub fn mark_watched_accesses_volatile(ir: &str, narrow: bool) -> String {
    let mut lines: Vec<String> = ir.split_inclusive('\n').map(str::to_string).collect();
    if narrow {
        narrow_components(&mut lines);
    }
    let mut out = String::with_capacity(ir.len() + ir.len() / 16);
    for line in &lines {
        match rewrite_line(line) {
            Some(new) => out.push_str(&new),
            None => out.push_str(line),
        }
    }
    out
}

/// `v.y = x` and `v.y` on a vector in memory: clang emits a load of the whole vector, an
/// `insertelement` (`extractelement`) and, for the store, a store of the whole vector.
/// Checked as they are, work-items writing different components of one vector race, and a
/// component written first reads the others before anyone wrote them; OpenCL C accesses
/// only the component named. So the vector load becomes a pointer to the component and the
/// access one of the component alone (each line still defines its value, so that numbered
/// values keep their order). Only where clang's unoptimised shape is exact: the lines
/// consecutive, the index constant, the vector temporaries used only there.
fn narrow_components(lines: &mut [String]) {
    let mut start = 0;
    while start < lines.len() {
        // One function at a time: value names are the function's.
        let Some(open) = (start..lines.len()).find(|&i| lines[i].starts_with("define ")) else {
            return;
        };
        let close = (open..lines.len())
            .find(|&i| lines[i].trim_end() == "}")
            .unwrap_or(lines.len() - 1);
        let body = &mut lines[open..=close];
        for i in 0..body.len().saturating_sub(1) {
            let Some(load) = vector_load(&body[i]) else {
                continue;
            };
            match uses(body, &load.name) {
                // A swizzle that assigns every component (`v.wzyx = u`) loads the vector
                // first and never uses it.
                0 if body[i + 1..body.len().min(i + 4)]
                    .iter()
                    .any(|l| stored_to(l).as_deref() == Some(load.pointer.as_str())) =>
                {
                    body[i] = component_pointer(&load, "i32 0", &load.trailer);
                    continue;
                }
                1 => {}
                _ => continue,
            }
            if let Some(new) = narrowed_read(&load, &body[i + 1])
                .or_else(|| narrowed_swizzle_read(&load, &body[i + 1]))
            {
                (body[i], body[i + 1]) = (new.0, new.1);
            } else if let Some(new) = body
                .get(i + 2)
                .and_then(|store| narrowed_write(&load, &body[i + 1], store))
                .filter(|n| uses(body, &n.3) == 1)
            {
                (body[i], body[i + 1], body[i + 2]) = (new.0, new.1, new.2);
            } else if let Some((blend, stores)) = body
                .get(i + 3)
                .and_then(|store| narrowed_swizzle(&load, &body[i + 2], store))
                .filter(|n| uses(body, &n.2) == 1)
                .map(|n| (n.0, n.1))
            {
                body[i] = component_pointer(&load, "i32 0", &load.trailer);
                (body[i + 2], body[i + 3]) = (blend, stores);
            }
        }
        start = close + 1;
    }
}

/// `%a = load <N x T>, P %p, align A[, rest]` of watched memory.
#[derive(Clone)]
struct VectorLoad {
    indent: String,
    name: String,
    vector: String,
    elem: String,
    pointer: String,
    trailer: String,
}

fn vector_load(line: &str) -> Option<VectorLoad> {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    let (name, rhs) = body.split_once(" = ")?;
    let rest = rhs.strip_prefix("load ")?;
    let parts = split_top(rest.trim_end());
    let [vector, pointer, align, trailer @ ..] = parts.as_slice() else {
        return None;
    };
    let vector = vector.trim();
    let elem = vector
        .strip_prefix('<')?
        .strip_suffix('>')?
        .split_once(" x ")?
        .1;
    if !align.trim().starts_with("align ")
        || !WATCHED.contains(&pointer_space(pointer)?)
        || !name.starts_with('%')
    {
        return None;
    }
    Some(VectorLoad {
        indent: indent.into(),
        name: name.into(),
        vector: vector.into(),
        elem: elem.into(),
        pointer: pointer.trim().into(),
        trailer: trailer.iter().map(|t| format!(",{t}")).collect(),
    })
}

/// `%x = <op> <operands>[, rest]`: the result name and the operands before any metadata.
fn operation<'a>(line: &'a str, op: &str) -> Option<(&'a str, Vec<&'a str>)> {
    let (name, rhs) = line.trim().split_once(" = ")?;
    let parts = split_top(rhs.strip_prefix(op)?);
    Some((
        name,
        parts
            .into_iter()
            .filter(|p| !p.trim().starts_with('!'))
            .collect(),
    ))
}

/// `<type> <value>` split at its last top-level space.
fn typed(operand: &str) -> Option<(&str, &str)> {
    let operand = operand.trim();
    let toks = tokens(operand);
    let value = toks.last()?;
    Some((operand[..operand.len() - value.len()].trim_end(), value))
}

/// The pointer type of an element of the vector `load.pointer` points at, and the
/// element's size in bytes (its natural alignment).
fn element_pointer(load: &VectorLoad) -> Option<(String, u32)> {
    // Watched pointers only, so always in a numbered address space (the pointer may be a
    // constant expression: its type is not simply what precedes its last token).
    let space = pointer_space(&load.pointer)?;
    let ty = if load.pointer.starts_with("ptr") {
        format!("ptr addrspace({space})")
    } else {
        format!("{} addrspace({space})*", load.elem)
    };
    let size = match load.elem.as_str() {
        "half" => 2,
        "float" => 4,
        "double" => 8,
        t => t.strip_prefix('i')?.parse::<u32>().ok()?.div_ceil(8),
    };
    Some((ty, size))
}

/// `%a = load` + `%b = extractelement <N x T> %a, iK C` → a pointer to component C and a
/// load of it.
fn narrowed_read(load: &VectorLoad, next: &str) -> Option<(String, String)> {
    let (name, ops) = operation(next, "extractelement ")?;
    let [vec, idx] = ops.as_slice() else {
        return None;
    };
    if typed(vec)? != (load.vector.as_str(), load.name.as_str()) {
        return None;
    }
    let (idx_ty, c) = typed(idx)?;
    c.parse::<u32>().ok()?;
    let (elem_ptr, size) = element_pointer(load)?;
    let (ind, trailer) = (&load.indent, trailer_of(next));
    Some((
        format!(
            "{ind}{} = getelementptr inbounds {}, {}, i32 0, {idx_ty} {c}{}\n",
            load.name, load.vector, load.pointer, load.trailer
        ),
        format!(
            "{ind}{name} = load {}, {elem_ptr} {}, align {size}{trailer}\n",
            load.elem, load.name
        ),
    ))
}

/// `%a = load` + `%b = shufflevector <N x T> %a, <N x T> poison, <M x i32> mask` (`v.xy`,
/// `v.odd`: a swizzle read of some components) → a placeholder pointer, then a load of each
/// component named and the vector `%b` built from them.
fn narrowed_swizzle_read(load: &VectorLoad, next: &str) -> Option<(String, String)> {
    let (name, ops) = operation(next, "shufflevector ")?;
    let [vec, _, mask] = ops.as_slice() else {
        return None;
    };
    if typed(vec)? != (load.vector.as_str(), load.name.as_str()) || name.contains('"') {
        return None;
    }
    let n: usize = load
        .vector
        .strip_prefix('<')?
        .split_once(" x ")?
        .0
        .parse()
        .ok()?;
    let (_, mask) = typed(mask)?;
    let mask = mask
        .strip_prefix('<')?
        .strip_suffix('>')?
        .split(',')
        .map(|m| {
            m.trim()
                .strip_prefix("i32 ")?
                .parse::<usize>()
                .ok()
                .filter(|&m| m < n)
        })
        .collect::<Option<Vec<usize>>>()?;
    let (elem_ptr, size) = element_pointer(load)?;
    let (ind, tr, tag) = (&load.indent, trailer_of(next), name.trim_start_matches('%'));
    let out_ty = format!("<{} x {}>", mask.len(), load.elem);
    let mut lines = String::new();
    let mut built = "undef".to_string();
    for (j, m) in mask.iter().enumerate() {
        let (v, p) = (format!("%scl.{tag}.{j}.v"), format!("%scl.{tag}.{j}.p"));
        lines.push_str(&component_pointer(
            &VectorLoad {
                name: p.clone(),
                ..load.clone()
            },
            &format!("i32 {m}"),
            &tr,
        ));
        lines.push_str(&format!(
            "{ind}{v} = load volatile {}, {elem_ptr} {p}, align {size}{tr}\n",
            load.elem
        ));
        let into = if j + 1 == mask.len() {
            name.to_string()
        } else {
            format!("%scl.{tag}.{j}")
        };
        lines.push_str(&format!(
            "{ind}{into} = insertelement {out_ty} {built}, {} {v}, i32 {j}{tr}\n",
            load.elem
        ));
        built = into;
    }
    Some((component_pointer(load, "i32 0", &load.trailer), lines))
}

/// `%a = load` + `%b = insertelement <N x T> %a, T %x, iK C` + `store <N x T> %b, P %p` →
/// a pointer to component C, the same pointer again (`%b` must still be defined), and a
/// store of `%x` through it. The last element is `%b`, which must have no other use.
fn narrowed_write(
    load: &VectorLoad,
    next: &str,
    store: &str,
) -> Option<(String, String, String, String)> {
    let (name, ops) = operation(next, "insertelement ")?;
    let [vec, val, idx] = ops.as_slice() else {
        return None;
    };
    if typed(vec)? != (load.vector.as_str(), load.name.as_str()) {
        return None;
    }
    let (idx_ty, c) = typed(idx)?;
    c.parse::<u32>().ok()?;
    if !stores_back(store, load, name) {
        return None;
    }
    let (elem_ptr, size) = element_pointer(load)?;
    let ind = &load.indent;
    Some((
        format!(
            "{ind}{} = getelementptr inbounds {}, {}, i32 0, {idx_ty} {c}{}\n",
            load.name, load.vector, load.pointer, load.trailer
        ),
        format!(
            "{ind}{name} = getelementptr inbounds {}, {elem_ptr} {}, i32 0{}\n",
            load.elem,
            load.name,
            trailer_of(next)
        ),
        format!(
            "{ind}store {}, {elem_ptr} {name}, align {size}{}\n",
            val.trim(),
            trailer_of(store)
        ),
        name.to_string(),
    ))
}

/// `%a = getelementptr inbounds <N x T>, P %p, i32 0, <index>`: a pointer to a component of
/// the vector `load` loaded, defining `load`'s value in its place.
fn component_pointer(load: &VectorLoad, index: &str, trailer: &str) -> String {
    format!(
        "{}{} = getelementptr inbounds {}, {}, i32 0, {index}{trailer}\n",
        load.indent, load.name, load.vector, load.pointer
    )
}

/// Whether `store` stores vector `value` (of `load`'s type) back where `load` loaded it.
fn stores_back(store: &str, load: &VectorLoad, value: &str) -> bool {
    let Some(rest) = store.trim().strip_prefix("store ") else {
        return false;
    };
    match split_top(rest).as_slice() {
        [v, pointer, ..] => {
            typed(v) == Some((load.vector.as_str(), value)) && pointer.trim() == load.pointer
        }
        _ => false,
    }
}

/// The pointer operand of a plain store line.
fn stored_to(line: &str) -> Option<String> {
    let parts = split_top(line.trim().strip_prefix("store ")?);
    Some(parts.get(1)?.trim().to_string())
}

/// `v.yz = u` (a swizzle that assigns some components): after `%a = load`, clang widens `u`
/// (`%w = shufflevector`, left as it is), blends (`%s = shufflevector <N x T> %a, <N x T> %w,
/// mask`) and stores `%s`. The blend becomes a placeholder pointer (`%s` must still be
/// defined) and the store one store per component assigned, of its element of `%w`.
/// Returns the two new lines and `%s`, which must have no other use.
fn narrowed_swizzle(
    load: &VectorLoad,
    blend: &str,
    store: &str,
) -> Option<(String, String, String)> {
    let (name, ops) = operation(blend, "shufflevector ")?;
    let [old, new, mask] = ops.as_slice() else {
        return None;
    };
    let (new_ty, widened) = typed(new)?;
    if typed(old)? != (load.vector.as_str(), load.name.as_str())
        || new_ty != load.vector
        || name.contains('"')
    {
        return None;
    }
    let (_, mask) = typed(mask)?;
    let mask: Vec<&str> = mask
        .strip_prefix('<')?
        .strip_suffix('>')?
        .split(',')
        .collect();
    let n = mask.len();
    if !stores_back(store, load, name) {
        return None;
    }
    let (elem_ptr, size) = element_pointer(load)?;
    let (ind, tr) = (&load.indent, trailer_of(store));
    let tag = name.trim_start_matches('%');
    let mut stores = String::new();
    for (j, m) in mask.iter().enumerate() {
        let m: usize = m.trim().strip_prefix("i32 ")?.parse().ok()?;
        if m == j {
            continue; // the component keeps its value
        }
        if m < n {
            return None; // a component moved within the vector: not an assignment
        }
        let (v, p) = (format!("%scl.{tag}.{j}.v"), format!("%scl.{tag}.{j}.p"));
        stores.push_str(&format!(
            "{ind}{v} = extractelement {} {widened}, i32 {}{tr}\n",
            load.vector,
            m - n
        ));
        stores.push_str(&component_pointer(
            &VectorLoad {
                name: p.clone(),
                ..load.clone()
            },
            &format!("i32 {j}"),
            &tr,
        ));
        stores.push_str(&format!(
            "{ind}store volatile {} {v}, {elem_ptr} {p}, align {size}{tr}\n",
            load.elem
        ));
    }
    let placeholder = format!(
        "{ind}{name} = getelementptr inbounds {}, {elem_ptr} {}, i32 0{}\n",
        load.elem,
        load.name,
        trailer_of(blend)
    );
    Some((placeholder, stores, name.to_string()))
}

/// The metadata attachments at the end of an instruction line (`, !dbg !48`), if any.
fn trailer_of(line: &str) -> String {
    split_top(line.trim_end())
        .iter()
        .filter(|p| p.trim().starts_with('!'))
        .map(|p| format!(",{p}"))
        .collect()
}

/// How many times value `name` appears in `lines` (its definition included).
fn uses(lines: &[String], name: &str) -> usize {
    lines
        .iter()
        .map(|l| {
            l.match_indices(name)
                .filter(|(i, _)| {
                    !l[i + name.len()..]
                        .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '.' || c == '_')
                })
                .count()
        })
        .sum::<usize>()
        .saturating_sub(1)
}

fn rewrite_line(line: &str) -> Option<String> {
    let body = line.trim_start();
    if body.starts_with("attributes #") {
        return drop_noinline(line);
    }
    // A C99 `inline` function's body comes `available_externally`: `opt` drops it, and a
    // call it did not inline would be left to a definition nobody provides. Kept as a
    // mergeable definition instead (a linked program may hold it twice).
    if let Some(rest) = line.strip_prefix("define available_externally ") {
        return Some(format!("define linkonce_odr {rest}"));
    }
    if let Some(rest) = instruction(body, "load ") {
        let at = line.len() - rest.len() - "load ".len();
        if rest.starts_with("atomic ") || rest.starts_with("volatile ") {
            return None;
        }
        // `load <type>, <pointer operand>, align ...`
        let parts = split_top(rest);
        let space = pointer_space(parts.get(1)?)?;
        return WATCHED
            .contains(&space)
            .then(|| format!("{}load volatile {rest}", &line[..at]));
    }
    if let Some(rest) = instruction(body, "store ") {
        let at = line.len() - rest.len() - "store ".len();
        if rest.starts_with("atomic ") || rest.starts_with("volatile ") {
            return None;
        }
        // `store <type> <value>, <pointer operand>, align ...`
        let parts = split_top(rest);
        let space = pointer_space(parts.get(1)?)?;
        return WATCHED
            .contains(&space)
            .then(|| format!("{}store volatile {rest}", &line[..at]));
    }
    mem_intrinsic(line)
}

/// `call void @llvm.memcpy|memmove|memset...(args, i1 false)`: the last argument is the
/// intrinsic's volatile flag.
fn mem_intrinsic(line: &str) -> Option<String> {
    let body = line.trim_start();
    let call = ["call ", "tail call ", "notail call ", "musttail call "]
        .iter()
        .find_map(|c| body.strip_prefix(c))?;
    let callee = call.strip_prefix("void ")?;
    if !["@llvm.memcpy.", "@llvm.memmove.", "@llvm.memset."]
        .iter()
        .any(|n| callee.starts_with(n))
    {
        return None;
    }
    let name_at = line.len() - callee.len();
    let open = name_at + line[name_at..].find('(')?;
    let close = open + matching_close(&line[open..])?;
    let args = split_top(&line[open + 1..close]);
    let pointers = if line[name_at..].starts_with("@llvm.memset.") {
        &args[..args.len().min(1)]
    } else {
        &args[..args.len().min(2)]
    };
    let watched = pointers
        .iter()
        .any(|p| pointer_space(p).is_some_and(|s| WATCHED.contains(&s)));
    let flag = args.last()?.trim();
    if !watched || flag != "i1 false" {
        return None;
    }
    let flag_at = open + 1 + line[open + 1..close].rfind("i1 false")?;
    Some(format!(
        "{}i1 true{}",
        &line[..flag_at],
        &line[flag_at + "i1 false".len()..]
    ))
}

/// `attributes #0 = { convergent noinline ... }` without `noinline` (clang puts it on every
/// function at `-O0`, the source on some): helpers that stay calls cost the interpreter a
/// frame each.
fn drop_noinline(line: &str) -> Option<String> {
    let at = find_word(line, "noinline")?;
    let end = at + "noinline".len();
    let tail = line[end..].strip_prefix(' ').unwrap_or(&line[end..]);
    Some(format!("{}{tail}", &line[..at]))
}

/// The operands of instruction `op` when `body` (a line without its indentation) is one:
/// `store ...` or `%name = load ...`.
fn instruction<'a>(body: &'a str, op: &str) -> Option<&'a str> {
    if let Some(rest) = body.strip_prefix(op) {
        return Some(rest);
    }
    let (result, rhs) = body.split_once(" = ")?;
    if !result.starts_with('%') || result.contains(' ') {
        return None;
    }
    rhs.strip_prefix(op)
}

/// Byte index of `word` where it starts a token (after a space or the line start).
fn find_word(line: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = line[from..].find(word) {
        let at = from + i;
        if line[..at].chars().next_back().is_none_or(|c| c == ' ') {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// Splits at commas outside brackets and quotes.
fn split_top(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut quoted, mut start) = (0i32, false, 0);
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            _ if quoted => {}
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

/// Offset of the bracket closing the one `s` starts with.
pub(crate) fn matching_close(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Words outside brackets.
fn tokens(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, None);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' | '<' => {
                depth += 1;
                start.get_or_insert(i);
            }
            ')' | ']' | '}' | '>' => depth -= 1,
            ' ' | '\t' if depth == 0 => {
                if let Some(st) = start.take() {
                    out.push(&s[st..i]);
                }
            }
            _ => {
                start.get_or_insert(i);
            }
        }
    }
    if let Some(st) = start {
        out.push(s[st..].trim_end());
    }
    out
}

/// The address space of a pointer operand such as `i32 addrspace(3)* %5`,
/// `ptr addrspace(1) %p`, `i8* align 4 %x` or `float addrspace(1)** %q` (a private pointer
/// to a global one: 0).
fn pointer_space(operand: &str) -> Option<u32> {
    let toks = tokens(operand.trim());
    let number = |t: &str| -> Option<u32> {
        t.strip_prefix("addrspace(")?
            .split(')')
            .next()?
            .parse()
            .ok()
    };
    if toks.first() == Some(&"ptr") {
        return Some(toks.get(1).and_then(|t| number(t)).unwrap_or(0));
    }
    // Typed pointers: the type ends with the last of the tokens made of `addrspace(N)` and
    // stars that follow the first token ending in `*`.
    let first = toks.iter().position(|t| t.ends_with('*'))?;
    let mut last = toks[first];
    for t in &toks[first + 1..] {
        if t.starts_with("addrspace(") && t.ends_with('*') || t.chars().all(|c| c == '*') {
            last = t;
        } else {
            break;
        }
    }
    let stars = last.len() - last.trim_end_matches('*').len();
    match (number(last), stars) {
        (Some(n), 1) => Some(n),
        _ => Some(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(line: &str) -> String {
        mark_watched_accesses_volatile(line, true)
    }

    #[test]
    fn loads_and_stores_of_watched_memory_become_volatile() {
        assert_eq!(
            rw("  %6 = load i32, i32 addrspace(3)* %5, align 4, !dbg !23\n"),
            "  %6 = load volatile i32, i32 addrspace(3)* %5, align 4, !dbg !23\n"
        );
        assert_eq!(
            rw("  store i32 %6, i32 addrspace(3)* @flag.last, align 4\n"),
            "  store volatile i32 %6, i32 addrspace(3)* @flag.last, align 4\n"
        );
        assert_eq!(
            rw("  %x = load float, ptr addrspace(1) %p, align 4\n"),
            "  %x = load volatile float, ptr addrspace(1) %p, align 4\n"
        );
        assert_eq!(
            rw("  store <4 x i32> <i32 1, i32 2, i32 3, i32 4>, <4 x i32> addrspace(4)* %q, align 16\n"),
            "  store volatile <4 x i32> <i32 1, i32 2, i32 3, i32 4>, <4 x i32> addrspace(4)* %q, align 16\n"
        );
        // A constant-expression pointer.
        let gep = "  store i32 1, i32 addrspace(3)* getelementptr inbounds ([64 x i32], [64 x i32] addrspace(3)* @k.tile, i64 0, i64 5), align 4\n";
        assert!(rw(gep).contains("store volatile i32 1"));
    }

    #[test]
    fn private_pointers_and_atomics_are_left_alone() {
        for line in [
            "  %3 = load i32 addrspace(3)*, i32 addrspace(3)** %2, align 8\n",
            "  store i32 addrspace(1)* %0, i32 addrspace(1)** %2, align 8\n",
            "  store i32 2, i32* %7, align 4\n",
            "  %v = load i32, ptr %a, align 4\n",
            "  %v = load atomic i32, i32 addrspace(1)* %a seq_cst, align 4\n",
            "  store atomic i32 1, i32 addrspace(1)* %a seq_cst, align 4\n",
            "  %v = load volatile i32, i32 addrspace(1)* %a, align 4\n",
        ] {
            assert_eq!(rw(line), line);
        }
        // Text that only looks like an access.
        let text = "@.str = private unnamed_addr addrspace(2) constant [9 x i8] c\"a = load \\00\", align 1\n";
        assert_eq!(rw(text), text);
        // A global pointer kept in local memory: the access is to local memory.
        assert_eq!(pointer_space("i32 addrspace(1)* addrspace(3)* %p"), Some(3));
    }

    #[test]
    fn memory_intrinsics_on_watched_memory_become_volatile() {
        let cpy = "  call void @llvm.memcpy.p1i8.p3i8.i64(i8 addrspace(1)* align 4 %21, i8 addrspace(3)* align 4 %22, i64 12, i1 false), !dbg !93\n";
        assert_eq!(rw(cpy), cpy.replace("i64 12, i1 false", "i64 12, i1 true"));
        let private = "  call void @llvm.memcpy.p0i8.p0i8.i64(i8* align 4 %a, i8* align 4 %b, i64 12, i1 false)\n";
        assert_eq!(rw(private), private);
        let set = "  call void @llvm.memset.p3i8.i64(i8 addrspace(3)* align 4 %a, i8 0, i64 8, i1 false)\n";
        assert!(rw(set).ends_with("i64 8, i1 true)\n"));
        let decl = "declare void @llvm.memcpy.p1i8.p3i8.i64(i8 addrspace(1)* noalias nocapture writeonly, i8 addrspace(3)* noalias nocapture readonly, i64, i1 immarg) #4\n";
        assert_eq!(rw(decl), decl);
    }

    #[test]
    fn a_component_store_or_read_accesses_the_component_alone() {
        let ir = "define spir_kernel void @k() {
  %19 = load <4 x float>, <4 x float> addrspace(1)* %18, align 16, !dbg !48
  %20 = insertelement <4 x float> %19, float %15, i64 2, !dbg !48
  store <4 x float> %20, <4 x float> addrspace(1)* %18, align 16, !dbg !48
  %43 = load <3 x i32>, ptr addrspace(3) %42, align 16, !dbg !70
  %44 = extractelement <3 x i32> %43, i64 1, !dbg !70
  %45 = load <4 x float>, <4 x float> addrspace(3)* getelementptr inbounds ([1 x <4 x float>], [1 x <4 x float>] addrspace(3)* @k.L, i64 0, i64 0), align 16
  %46 = extractelement <4 x float> %45, i32 3
  ret void
}
";
        let want = "define spir_kernel void @k() {
  %19 = getelementptr inbounds <4 x float>, <4 x float> addrspace(1)* %18, i32 0, i64 2, !dbg !48
  %20 = getelementptr inbounds float, float addrspace(1)* %19, i32 0, !dbg !48
  store volatile float %15, float addrspace(1)* %20, align 4, !dbg !48
  %43 = getelementptr inbounds <3 x i32>, ptr addrspace(3) %42, i32 0, i64 1, !dbg !70
  %44 = load volatile i32, ptr addrspace(3) %43, align 4, !dbg !70
  %45 = getelementptr inbounds <4 x float>, <4 x float> addrspace(3)* getelementptr inbounds ([1 x <4 x float>], [1 x <4 x float>] addrspace(3)* @k.L, i64 0, i64 0), i32 0, i32 3
  %46 = load volatile float, float addrspace(3)* %45, align 4
  ret void
}
";
        assert_eq!(rw(ir), want);
    }

    #[test]
    fn a_swizzle_assignment_stores_the_components_it_names() {
        let ir = "define spir_kernel void @k() {
  %19 = load <4 x float>, <4 x float> addrspace(1)* %18, align 16, !dbg !5
  %20 = shufflevector <2 x float> %15, <2 x float> poison, <4 x i32> <i32 0, i32 1, i32 undef, i32 undef>, !dbg !5
  %21 = shufflevector <4 x float> %19, <4 x float> %20, <4 x i32> <i32 0, i32 5, i32 4, i32 3>, !dbg !5
  store <4 x float> %21, <4 x float> addrspace(1)* %18, align 16, !dbg !5
  %35 = load <4 x float>, <4 x float> addrspace(1)* %34, align 16, !dbg !6
  %36 = shufflevector <4 x float> %31, <4 x float> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>, !dbg !6
  store <4 x float> %36, <4 x float> addrspace(1)* %34, align 16, !dbg !6
  ret void
}
";
        let want = "define spir_kernel void @k() {
  %19 = getelementptr inbounds <4 x float>, <4 x float> addrspace(1)* %18, i32 0, i32 0, !dbg !5
  %20 = shufflevector <2 x float> %15, <2 x float> poison, <4 x i32> <i32 0, i32 1, i32 undef, i32 undef>, !dbg !5
  %21 = getelementptr inbounds float, float addrspace(1)* %19, i32 0, !dbg !5
  %scl.21.1.v = extractelement <4 x float> %20, i32 1, !dbg !5
  %scl.21.1.p = getelementptr inbounds <4 x float>, <4 x float> addrspace(1)* %18, i32 0, i32 1, !dbg !5
  store volatile float %scl.21.1.v, float addrspace(1)* %scl.21.1.p, align 4, !dbg !5
  %scl.21.2.v = extractelement <4 x float> %20, i32 0, !dbg !5
  %scl.21.2.p = getelementptr inbounds <4 x float>, <4 x float> addrspace(1)* %18, i32 0, i32 2, !dbg !5
  store volatile float %scl.21.2.v, float addrspace(1)* %scl.21.2.p, align 4, !dbg !5
  %35 = getelementptr inbounds <4 x float>, <4 x float> addrspace(1)* %34, i32 0, i32 0, !dbg !6
  %36 = shufflevector <4 x float> %31, <4 x float> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>, !dbg !6
  store volatile <4 x float> %36, <4 x float> addrspace(1)* %34, align 16, !dbg !6
  ret void
}
";
        assert_eq!(rw(ir), want);
    }

    #[test]
    fn a_swizzle_read_loads_the_components_it_names() {
        let ir = "define spir_kernel void @k() {
  %57 = load <4 x float>, <4 x float> addrspace(3)* %56, align 16, !dbg !9
  %58 = shufflevector <4 x float> %57, <4 x float> poison, <2 x i32> <i32 1, i32 3>, !dbg !9
  ret void
}
";
        let want = "define spir_kernel void @k() {
  %57 = getelementptr inbounds <4 x float>, <4 x float> addrspace(3)* %56, i32 0, i32 0, !dbg !9
  %scl.58.0.p = getelementptr inbounds <4 x float>, <4 x float> addrspace(3)* %56, i32 0, i32 1, !dbg !9
  %scl.58.0.v = load volatile float, float addrspace(3)* %scl.58.0.p, align 4, !dbg !9
  %scl.58.0 = insertelement <2 x float> undef, float %scl.58.0.v, i32 0, !dbg !9
  %scl.58.1.p = getelementptr inbounds <4 x float>, <4 x float> addrspace(3)* %56, i32 0, i32 3, !dbg !9
  %scl.58.1.v = load volatile float, float addrspace(3)* %scl.58.1.p, align 4, !dbg !9
  %58 = insertelement <2 x float> %scl.58.0, float %scl.58.1.v, i32 1, !dbg !9
  ret void
}
";
        assert_eq!(rw(ir), want);
    }

    #[test]
    fn a_vector_used_whole_stays_whole() {
        // The loaded vector also used elsewhere; a run-time index; a private vector; the
        // stored vector kept too.
        let ir = "define spir_func void @f() {
  %1 = load <4 x float>, <4 x float> addrspace(1)* %0, align 16
  %2 = extractelement <4 x float> %1, i64 0
  %3 = fadd <4 x float> %1, %1
  %4 = load <4 x float>, <4 x float> addrspace(1)* %0, align 16
  %5 = extractelement <4 x float> %4, i64 %i
  %6 = load <2 x i32>, <2 x i32>* %p, align 8
  %7 = extractelement <2 x i32> %6, i64 0
  %8 = load <2 x i32>, <2 x i32> addrspace(3)* %q, align 8
  %9 = insertelement <2 x i32> %8, i32 1, i64 0
  store <2 x i32> %9, <2 x i32> addrspace(3)* %q, align 8
  store <2 x i32> %9, <2 x i32> addrspace(3)* %r, align 8
  %10 = load <2 x i32>, <2 x i32> addrspace(3)* %q, align 8
  %11 = shufflevector <2 x i32> %10, <2 x i32> %w, <2 x i32> <i32 1, i32 2>
  store <2 x i32> %11, <2 x i32> addrspace(3)* %q, align 8
  %12 = load <2 x i32>, <2 x i32> addrspace(3)* %q, align 8
  ret void
}
";
        // Also: a blend that moves a component within the vector; an unused load that no
        // store to its vector follows.
        let out = rw(ir);
        assert!(!out.contains("getelementptr"), "{out}");
        assert_eq!(out.matches("load volatile <4 x float>").count(), 2, "{out}");
        assert!(out.contains("%6 = load <2 x i32>, <2 x i32>* %p"), "{out}");
        assert!(out.contains("%8 = load volatile <2 x i32>"), "{out}");
        assert!(out.contains("%10 = load volatile <2 x i32>"), "{out}");
        assert!(out.contains("%12 = load volatile <2 x i32>"), "{out}");
    }

    #[test]
    fn a_c99_inline_body_is_kept_as_a_mergeable_definition() {
        assert_eq!(
            rw("define available_externally dso_local spir_func float @sq(float %0) #1 {\n"),
            "define linkonce_odr dso_local spir_func float @sq(float %0) #1 {\n"
        );
    }

    #[test]
    fn noinline_is_dropped_from_attribute_groups() {
        assert_eq!(
            rw("attributes #0 = { convergent noinline norecurse nounwind }\n"),
            "attributes #0 = { convergent norecurse nounwind }\n"
        );
    }
}
