//! The case header: `// key: value` lines before the first line of code, into a [`Case`].

use std::collections::BTreeMap;
use std::path::Path;

use super::*;

/// Splits `global: 64  local: 32` into [("global","64"),("local","32")], only on known keys.
fn split_pairs(text: &str) -> Option<Vec<(String, String)>> {
    // Find positions of "key:" where key is known and starts at a word boundary.
    let mut marks: Vec<(usize, usize, &str)> = Vec::new(); // (start, value_start, key)
    let bytes = text.as_bytes();
    for key in KEYS {
        let pat = format!("{key}:");
        let mut from = 0;
        while let Some(pos) = text[from..].find(&pat) {
            let at = from + pos;
            let boundary = at == 0 || bytes[at - 1].is_ascii_whitespace();
            if boundary {
                marks.push((at, at + pat.len(), key));
            }
            from = at + pat.len();
        }
    }
    marks.sort_by_key(|m| m.0);
    // Keys that take free text must not be split further.
    let mut pairs = Vec::new();
    let first = marks.first()?;
    if first.0 != 0 {
        return None;
    }
    let free_text = [
        "expect",
        "oclgrind",
        "options",
        "reference-options",
        "compare",
        "arg",
    ];
    let mut i = 0;
    while i < marks.len() {
        let (_, vstart, key) = marks[i];
        let end = if free_text.contains(&key) {
            text.len()
        } else {
            marks.get(i + 1).map(|m| m.0).unwrap_or(text.len())
        };
        pairs.push((key.to_string(), text[vstart..end].trim().to_string()));
        if free_text.contains(&key) {
            break;
        }
        i += 1;
    }
    Some(pairs)
}

fn parse_dims(v: &str) -> Result<Vec<usize>, String> {
    let dims: Result<Vec<usize>, _> = v.split(',').map(|d| d.trim().parse::<usize>()).collect();
    let dims = dims.map_err(|_| format!("`{v}` is not a list of 1-3 sizes"))?;
    if dims.is_empty() || dims.len() > 3 {
        return Err(format!("`{v}` must have 1-3 dimensions"));
    }
    Ok(dims)
}

fn parse_fill(v: &str) -> Result<Fill, String> {
    let (head, inner) = match v.find('(') {
        Some(p) if v.ends_with(')') => (&v[..p], Some(&v[p + 1..v.len() - 1])),
        _ => (v, None),
    };
    let nums = |s: &str| -> Result<Vec<f64>, String> {
        s.split(',')
            .filter(|x| !x.trim().is_empty())
            .map(|x| {
                parse_float(x.trim())
                    .or_else(|| parse_int(x.trim()).map(|i| i as f64))
                    .ok_or_else(|| format!("bad number `{x}` in fill"))
            })
            .collect()
    };
    Ok(match (head, inner) {
        ("none", None) => Fill::None,
        ("zero", None) => Fill::Zero,
        ("ones", None) => Fill::Ones,
        ("iota", None) => Fill::Iota {
            start: 0.0,
            step: 1.0,
        },
        ("iota", Some(a)) => {
            let n = nums(a)?;
            Fill::Iota {
                start: n.first().copied().unwrap_or(0.0),
                step: n.get(1).copied().unwrap_or(1.0),
            }
        }
        ("random", Some(a)) => {
            let parts: Vec<&str> = a.split(',').map(str::trim).collect();
            let seed = parts
                .first()
                .and_then(|s| parse_int(s))
                .ok_or_else(|| format!("random(seed[,lo,hi]) needs an integer seed, got `{a}`"))?
                as u64;
            let range = if parts.len() == 3 {
                let n = nums(&parts[1..].join(","))?;
                Some((n[0], n[1]))
            } else if parts.len() == 1 {
                None
            } else {
                return Err(format!("random(seed[,lo,hi]) got `{a}`"));
            };
            Fill::Random { seed, range }
        }
        ("values", Some(a)) => Fill::Values(a.split(',').map(|s| s.trim().to_string()).collect()),
        _ => {
            return Err(format!(
                "unknown fill `{v}` (zero|ones|iota[(start,step)]|random(seed[,lo,hi])|values(a,b,..)|none)"
            ))
        }
    })
}

/// Encodes a by-value argument: `int 5`, `float4 1,2,3,4`, `struct(int,float) 3,2.5`.
pub(super) fn encode_scalar(ty: &str, value: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    if let Some(fields) = ty.strip_prefix("struct(").and_then(|s| s.strip_suffix(')')) {
        // Fields may be scalars or vectors; each field is aligned to its own size (a
        // 3-vector occupies and aligns like a 4-vector) and consumes one value per lane.
        let mut vals = value.split(',').map(str::trim);
        let mut max_align = 1;
        for t in fields.split(',').map(str::trim) {
            let (s, lanes) = split_vector(t)?;
            let stored = if lanes == 3 { 4 } else { lanes };
            let a = s.size() * stored;
            max_align = max_align.max(a);
            while out.len() % a != 0 {
                out.push(0);
            }
            for _ in 0..lanes {
                let v = vals
                    .next()
                    .ok_or_else(|| format!("struct field `{t}` has too few values"))?;
                s.encode(v, &mut out)?;
            }
            out.extend(std::iter::repeat_n(0, s.size() * (stored - lanes)));
        }
        if vals.next().is_some() {
            return Err("struct has more values than fields".into());
        }
        while out.len() % max_align != 0 {
            out.push(0);
        }
        return Ok(out);
    }
    let (base, lanes) = split_vector(ty)?;
    let vals: Vec<&str> = value.split(',').map(str::trim).collect();
    if vals.len() != lanes {
        return Err(format!("{ty} needs {lanes} values, got {}", vals.len()));
    }
    for v in vals {
        base.encode(v, &mut out)?;
    }
    if lanes == 3 {
        // A 3-vector occupies 4 lanes.
        let pad = base.size();
        out.extend(std::iter::repeat_n(0, pad));
    }
    Ok(out)
}

fn split_vector(ty: &str) -> Result<(Scalar, usize), String> {
    let digits = ty.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let base = &ty[..ty.len() - digits.len()];
    let s = Scalar::parse(base).ok_or_else(|| format!("unknown type `{ty}`"))?;
    let lanes = if digits.is_empty() {
        1
    } else {
        match digits.parse::<usize>() {
            Ok(n @ (2 | 3 | 4 | 8 | 16)) => n,
            _ => return Err(format!("bad vector width in `{ty}`")),
        }
    };
    Ok((s, lanes))
}

pub fn parse(path: &Path, source: String) -> Result<Case, CaseError> {
    let file = path.display().to_string();
    let err = |line: usize, msg: String| CaseError {
        file: file.clone(),
        line,
        msg,
    };
    let mut case = Case {
        path: path.to_path_buf(),
        source: String::new(),
        out_of_order: false,
        queues: 1,
        buffers: Vec::new(),
        launches: Vec::new(),
        release_before_launch: Vec::new(),
        expects: None,
        checks: None,
        compile: None,
        compares: Vec::new(),
        options: String::new(),
        reference_options: None,
        requires: Vec::new(),
        oclgrind: None,
        schedule_dependent: None,
        twin: None,
    };
    let mut release_refs: Vec<(usize, String)> = Vec::new();
    let mut commands: Vec<(usize, usize, String)> = Vec::new();
    for (i, raw) in source.lines().enumerate() {
        let lineno = i + 1;
        let t = raw.trim();
        if t.is_empty() {
            continue;
        }
        let Some(body) = t.strip_prefix("//") else {
            break; // end of the header block
        };
        let body = body.trim();
        let Some(pairs) = split_pairs(body) else {
            continue; // description text
        };
        for (key, value) in pairs {
            let e = |m: String| err(lineno, format!("{key}: {m}"));
            match key.as_str() {
                "kernel" | "launch" => {
                    if value.is_empty() {
                        return Err(e("needs a kernel name".into()));
                    }
                    case.launches.push(Launch::new(value));
                }
                "command" => {
                    // Resolved once every buffer is declared (a command may come first).
                    commands.push((lineno, case.launches.len(), value.clone()));
                    case.launches.push(Launch::new(value));
                }
                "global" | "local" | "offset" | "arg" | "after" | "on" | "host-wait" => {
                    launch_key(&mut case, &key, &value).map_err(e)?
                }
                "queues" => {
                    case.queues = value
                        .parse()
                        .ok()
                        .filter(|&n| n >= 1)
                        .ok_or_else(|| e(format!("`{value}` is not a queue count")))?
                }
                "queue" => match value.as_str() {
                    "out-of-order" => case.out_of_order = true,
                    "in-order" => case.out_of_order = false,
                    _ => return Err(e(format!("`{value}`: in-order | out-of-order"))),
                },
                "release-before-launch" => {
                    for v in value.split(',') {
                        release_refs.push((lineno, v.trim().to_string()));
                    }
                }
                "expect" => {
                    expect_line(case.expects.get_or_insert_with(Vec::new), &value).map_err(e)?
                }
                "checks" => case.checks = Some(value),
                "compile" => match value.as_str() {
                    "app" | "source" => case.compile = Some(value),
                    _ => return Err(e(format!("`{value}`: compile: app | source"))),
                },
                "twin" => case.twin = Some(value),
                "schedule-dependent" => {
                    if value.is_empty() {
                        return Err(e("`schedule-dependent: REASON` needs a reason".into()));
                    }
                    case.schedule_dependent = Some(value)
                }
                "options" => case.options = value,
                "reference-options" => case.reference_options = Some(value),
                "requires" => case
                    .requires
                    .extend(value.split(',').map(|s| s.trim().to_string())),
                "compare" => case.compares.push(compare_line(&value).map_err(e)?),
                "oclgrind" => case.oclgrind = Some(oclgrind_line(&value).map_err(e)?),
                _ => {}
            }
        }
    }
    if case.launches.len() == commands.len() {
        return Err(err(0, "declares no `// kernel:` line".into()));
    }
    for (lineno, i, value) in commands {
        let c = host_command(&case.buffers, &value)
            .map_err(|m| err(lineno, format!("command: {m}")))?;
        case.launches[i].command = Some(c);
    }
    check_launches(&case).map_err(|m| err(0, m))?;
    for (lineno, r) in release_refs {
        let idx = if let Ok(n) = r.parse::<usize>() {
            match case.launches[0].args.get(n) {
                Some(Arg::Buffer(b)) => *b,
                _ => {
                    return Err(err(
                        lineno,
                        format!("release-before-launch: argument {n} is not a buffer"),
                    ))
                }
            }
        } else {
            case.buffers
                .iter()
                .position(|b| b.name == r)
                .ok_or_else(|| err(lineno, format!("release-before-launch: no buffer `{r}`")))?
        };
        case.release_before_launch.push(idx);
    }
    for c in &case.compares {
        for t in &c.targets {
            if t != "stdout" && !case.buffers.iter().any(|b| &b.name == t) {
                return Err(err(0, format!("compare: no buffer named `{t}`")));
            }
        }
    }
    case.source = source;
    Ok(case)
}

enum ParsedArg {
    New(BufferDecl),
    Arg(Arg),
}

/// `buffer TYPE COUNT [fill=..] [name=..]` | `use NAME` | `local TYPE COUNT` | `scalar TYPE VALUE`
fn parse_arg(
    v: &str,
    argi: usize,
    launchi: usize,
    buffers: &[BufferDecl],
    _nbuf: usize,
) -> Result<ParsedArg, String> {
    let words: Vec<&str> = v.split_whitespace().collect();
    match words.first().copied() {
        Some(kind @ ("buffer" | "image2d" | "image3d")) => {
            let dims = match kind {
                "buffer" => 1,
                "image2d" => 2,
                _ => 3,
            };
            if words.len() < 2 + dims {
                return Err(match kind {
                    "buffer" => "buffer TYPE COUNT [fill=..] [name=..]",
                    "image2d" => "image2d TYPE WIDTH HEIGHT [fill=..] [name=..]",
                    _ => "image3d TYPE WIDTH HEIGHT DEPTH [fill=..] [name=..]",
                }
                .into());
            }
            let elem = Scalar::parse(words[1])
                .ok_or_else(|| format!("unknown buffer element type `{}` (scalar types only; declare float4 data as float ×4)", words[1]))?;
            let mut sizes = [1usize; 3];
            for k in 0..dims {
                sizes[k] = words[2 + k]
                    .parse::<usize>()
                    .map_err(|_| format!("`{}` is not a count", words[2 + k]))?;
            }
            let image = (dims > 1).then_some(sizes);
            if image.is_some() && image_channel_type(elem).is_none() {
                return Err(format!("no image channel type for `{}`", words[1]));
            }
            let count = match image {
                Some([w, h, d]) => w * h * d * 4,
                None => sizes[0],
            };
            let words: Vec<&str> = [&words[..2], &["_"], &words[2 + dims..]].concat();
            let mut fill = Fill::Zero;
            let mut access = KernelAccess::ReadWrite;
            let mut name = default_arg_name(launchi, argi);
            for w in &words[3..] {
                if let Some(f) = w.strip_prefix("fill=") {
                    fill = parse_fill(f)?;
                } else if let Some(n) = w.strip_prefix("name=") {
                    name = n.to_string();
                } else if let Some(f) = w.strip_prefix("flags=") {
                    access = access_flag(f)?;
                } else if *w == "none" {
                    fill = Fill::None;
                } else {
                    return Err(format!(
                        "unknown buffer option `{w}` (fill=.., name=.. or flags=..)"
                    ));
                }
            }
            if buffers.iter().any(|b| b.name == name) {
                return Err(format!("buffer name `{name}` used twice (use `arg: use {name}`)"));
            }
            Ok(ParsedArg::New(BufferDecl {
                name,
                elem,
                count,
                fill,
                image,
                access,
                sub: None,
            }))
        }
        Some("sampler") => {
            let [_, n, a, f] = words[..] else {
                return Err("sampler normalized|unnormalized ADDRESSING nearest|linear".into());
            };
            let normalized = match n {
                "normalized" => true,
                "unnormalized" => false,
                _ => return Err(format!("`{n}`: normalized or unnormalized")),
            };
            let addressing = match a {
                "none" => 0x1130,
                "clamp_to_edge" => 0x1131,
                "clamp" => 0x1132,
                "repeat" => 0x1133,
                "mirrored_repeat" => 0x1134,
                _ => return Err(format!("`{a}`: none, clamp_to_edge, clamp, repeat or mirrored_repeat")),
            };
            let filter = match f {
                "nearest" => 0x1140,
                "linear" => 0x1141,
                _ => return Err(format!("`{f}`: nearest or linear")),
            };
            Ok(ParsedArg::Arg(Arg::Sampler {
                normalized,
                addressing,
                filter,
            }))
        }
        Some("sub") => {
            const USAGE: &str = "sub PARENT OFFSET COUNT [name=..] [flags=..]";
            let (Some(parent), Some(offset), Some(count)) = (words.get(1), words.get(2), words.get(3))
            else {
                return Err(USAGE.into());
            };
            let p = buffers
                .iter()
                .position(|b| b.name == *parent)
                .ok_or_else(|| format!("no earlier buffer named `{parent}`"))?;
            let pb = &buffers[p];
            if pb.image.is_some() || pb.sub.is_some() {
                return Err(format!("`{parent}` is not a buffer (an image or a sub-buffer)"));
            }
            let num = |w: &str| w.parse::<usize>().map_err(|_| format!("`{w}` is not a count"));
            let (offset, count) = (num(offset)?, num(count)?);
            if count == 0 || offset.checked_add(count).is_none_or(|end| end > pb.count) {
                return Err(format!(
                    "elements {offset}..{offset}+{count} are not inside `{parent}` ({} elements)",
                    pb.count
                ));
            }
            let mut name = default_arg_name(launchi, argi);
            let mut access = KernelAccess::ReadWrite;
            for w in &words[4..] {
                if let Some(n) = w.strip_prefix("name=") {
                    name = n.to_string();
                } else if let Some(f) = w.strip_prefix("flags=") {
                    access = access_flag(f)?;
                } else {
                    return Err(format!("unknown sub-buffer option `{w}` ({USAGE})"));
                }
            }
            if buffers.iter().any(|b| b.name == name) {
                return Err(format!("buffer name `{name}` used twice (use `arg: use {name}`)"));
            }
            Ok(ParsedArg::New(BufferDecl {
                name,
                elem: pb.elem,
                count,
                fill: Fill::None,
                image: None,
                access,
                sub: Some(SubRegion { parent: p, offset }),
            }))
        }
        Some("use") => {
            let n = words.get(1).ok_or("use NAME")?;
            let i = buffers
                .iter()
                .position(|b| b.name == *n)
                .ok_or_else(|| format!("no earlier buffer named `{n}`"))?;
            Ok(ParsedArg::Arg(Arg::Buffer(i)))
        }
        Some("local") => {
            if words.len() != 3 {
                return Err("local TYPE COUNT".into());
            }
            let (s, lanes) = split_vector(words[1])?;
            let lanes = if lanes == 3 { 4 } else { lanes };
            let count = words[2]
                .parse::<usize>()
                .map_err(|_| format!("`{}` is not an element count", words[2]))?;
            Ok(ParsedArg::Arg(Arg::Local(s.size() * lanes * count)))
        }
        Some("scalar") => {
            if words.len() < 3 {
                return Err("scalar TYPE VALUE".into());
            }
            let value = words[2..].join("");
            Ok(ParsedArg::Arg(Arg::Scalar(encode_scalar(words[1], &value)?)))
        }
        _ => Err(format!(
            "`{v}`: buffer TYPE COUNT [fill=..] [name=..] | image2d TYPE W H [..] | image3d TYPE W H D [..] | sampler .. | use NAME | local TYPE COUNT | scalar TYPE VALUE"
        )),
    }
}

/// A launch's `global:`, `local:`, `offset:`, `arg:`, `after:`, `on:` or `host-wait:` line,
/// into the case's last launch (and its buffers).
fn launch_key(case: &mut Case, key: &str, value: &str) -> Result<(), String> {
    let nbuf = case.buffers.len();
    let Some(l) = case.launches.last_mut() else {
        return Err("must follow a `kernel:` or `launch:` line".into());
    };
    match key {
        "global" => l.global = parse_dims(value)?,
        "local" if value == "none" => l.local = None,
        "local" => l.local = Some(parse_dims(value)?),
        "offset" => l.offset = Some(parse_dims(value)?),
        "on" => {
            l.on = value
                .parse()
                .map_err(|_| format!("`{value}` is not a queue index"))?
        }
        "host-wait" => {
            l.host_wait = match value {
                "finish" => true,
                _ => return Err(format!("`{value}`: finish")),
            }
        }
        "after" => {
            for a in value.split(',') {
                let n = a
                    .trim()
                    .parse::<usize>()
                    .map_err(|_| format!("`{a}` is not a launch index"))?;
                l.after.push(n);
            }
        }
        _ => {
            let argi = l.args.len();
            let launchi = case.launches.len() - 1;
            let arg = parse_arg(value, argi, launchi, &case.buffers, nbuf)?;
            let l = case.launches.last_mut().ok_or("no launch")?;
            match arg {
                ParsedArg::New(b) => {
                    case.buffers.push(b);
                    l.args.push(Arg::Buffer(nbuf));
                }
                ParsedArg::Arg(a) => l.args.push(a),
            }
        }
    }
    Ok(())
}

/// A `command:` line: `read NAME`, `write NAME` (buffers or images), `fill NAME`,
/// `map-unmap NAME` or `copy SRC DST` (buffers), on what the case's launches declare.
fn host_command(buffers: &[BufferDecl], value: &str) -> Result<HostCommand, String> {
    let any = |name: &str| {
        buffers
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| format!("no buffer `{name}`"))
    };
    let find = |name: &str| {
        Some(any(name)?)
            .filter(|&i| buffers[i].image.is_none())
            .ok_or_else(|| format!("`{name}` is an image: only read and write take images"))
    };
    let words: Vec<&str> = value.split_whitespace().collect();
    match words.as_slice() {
        ["read", b] => Ok(HostCommand::Read(any(b)?)),
        ["write", b] => Ok(HostCommand::Write(any(b)?)),
        ["fill", b] => Ok(HostCommand::Fill(find(b)?)),
        ["map-unmap", b] => Ok(HostCommand::MapUnmap(find(b)?)),
        ["copy", s, d] => {
            let (s, d) = (find(s)?, find(d)?);
            if buffers[s].bytes() != buffers[d].bytes() {
                return Err("copy: the buffers differ in size".into());
            }
            Ok(HostCommand::Copy(s, d))
        }
        _ => Err(format!(
            "`{value}`: read NAME | write NAME | fill NAME | map-unmap NAME | copy SRC DST"
        )),
    }
}

/// A new buffer's name when the case gives none: `argI`, or `lL.argI` in launch L.
fn default_arg_name(launchi: usize, argi: usize) -> String {
    if launchi == 0 {
        format!("arg{argi}")
    } else {
        format!("l{launchi}.arg{argi}")
    }
}

/// `flags=`: the kernel access a memory object is created with.
fn access_flag(f: &str) -> Result<KernelAccess, String> {
    match f {
        "read-write" => Ok(KernelAccess::ReadWrite),
        "read-only" => Ok(KernelAccess::ReadOnly),
        "write-only" => Ok(KernelAccess::WriteOnly),
        _ => Err(format!("`flags={f}`: read-write, read-only or write-only")),
    }
}

/// An `expect:` line (`none`, or a finding kind and its `key=value` fields), into `list`.
fn expect_line(list: &mut Vec<Expect>, value: &str) -> Result<(), String> {
    let mut words = value.split_whitespace();
    let kind = words.next().unwrap_or("");
    if kind == "none" {
        if words.next().is_some() {
            return Err("`none` takes no fields".into());
        }
        return Ok(());
    }
    if !KINDS.contains(&kind) {
        return Err(format!(
            "unknown kind `{kind}` (one of {})",
            KINDS.join(", ")
        ));
    }
    let mut fields = BTreeMap::new();
    for w in words {
        let (k, v) = w
            .split_once('=')
            .ok_or_else(|| format!("field `{w}` is not key=value"))?;
        if !EXPECT_FIELDS.contains(&k) {
            return Err(format!(
                "unknown field `{k}` (one of {})",
                EXPECT_FIELDS.join(", ")
            ));
        }
        fields.insert(k.to_string(), v.to_string());
    }
    list.push(Expect {
        kind: kind.to_string(),
        fields,
    });
    Ok(())
}

/// A `compare:` line: `exact` or `ulp=N`, then buffer names or `stdout`.
fn compare_line(value: &str) -> Result<Compare, String> {
    let mut words = value.split_whitespace();
    let mode = match words.next() {
        Some("exact") => CompareMode::Exact,
        Some(m) if m.starts_with("ulp=") => CompareMode::Ulp(
            m[4..]
                .parse()
                .map_err(|_| format!("`{m}`: ulp=N needs a number"))?,
        ),
        other => {
            return Err(format!(
                "`{}`: exact | ulp=N, then buffer names or `stdout`",
                other.unwrap_or("")
            ))
        }
    };
    let targets: Vec<String> = words.map(str::to_string).collect();
    if targets.is_empty() {
        return Err("names no buffer (or `stdout`) to compare".into());
    }
    Ok(Compare { mode, targets })
}

/// An `oclgrind:` line: the kinds Oclgrind reports instead (or `none`, or `fatal`: it stops
/// with a fatal error or crashes, or `unbuildable`: it refuses to build the program), and why.
fn oclgrind_line(value: &str) -> Result<OclgrindOverride, String> {
    let (kinds, reason) = match value.split_once(char::is_whitespace) {
        Some((k, r)) => (k, r.trim()),
        None => (value, ""),
    };
    if reason.is_empty() {
        return Err(
            "`oclgrind: KINDS|none|fatal|unbuildable|unfinished REASON` needs a reason".into(),
        );
    }
    let fatal = kinds == "fatal";
    let unbuildable = kinds == "unbuildable";
    let unfinished = kinds == "unfinished";
    let kinds: Vec<String> = if kinds == "none" || fatal || unbuildable || unfinished {
        Vec::new()
    } else {
        kinds.split(',').map(str::to_string).collect()
    };
    for k in &kinds {
        if !KINDS.contains(&k.as_str()) {
            return Err(format!("unknown kind `{k}`"));
        }
    }
    Ok(OclgrindOverride {
        kinds,
        fatal,
        unbuildable,
        unfinished,
        reason: reason.to_string(),
    })
}

/// What the launches declare must fit together: sizes, queues, dependencies.
fn check_launches(case: &Case) -> Result<(), String> {
    for (i, l) in case.launches.iter().enumerate() {
        if l.command.is_some() && !(l.global.is_empty() && l.args.is_empty()) {
            return Err(format!(
                "command {i} ({}) takes no sizes or arguments",
                l.kernel
            ));
        }
        if l.global.is_empty() && l.command.is_none() {
            return Err(format!("launch {i} ({}) has no `global:`", l.kernel));
        }
        if let Some(loc) = &l.local {
            if loc.len() != l.global.len() {
                return Err(format!("launch {i}: local and global dims differ"));
            }
            for (g, lo) in l.global.iter().zip(loc) {
                if *lo == 0 || g % lo != 0 {
                    return Err(format!("launch {i}: local {lo} does not divide {g}"));
                }
            }
        }
        if l.on >= case.queues {
            return Err(format!(
                "launch {i}: on: {} but the case has {} queue(s)",
                l.on, case.queues
            ));
        }
        for a in &l.after {
            if *a >= i {
                return Err(format!("launch {i}: after: {a} is not an earlier launch"));
            }
        }
    }
    Ok(())
}
