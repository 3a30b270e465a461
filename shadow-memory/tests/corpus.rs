//! The labelled race corpus (tests/kernels/races) run straight through the interpreter and the
//! checkers, without the platform library: compiles each single-launch case with clang-15 and
//! llvm-spirv-15, runs it with a `LaunchChecker`, and compares the findings with `expect:`.
//!
//! Needs the compilers and a working interpreter, so it is ignored by default:
//! `cargo test -p shadowcl-shadow --test corpus -- --ignored --nocapture`
//! (`SHADOWCL_CORPUS_FILTER=substring` narrows it).

use shadowcl_interpreter::{ArgValue, Buffer, Device, Launch, Program, Schedule};
use shadowcl_shadow::{Checks, Config, LaunchOrder, Report, Session};

/// A case's launch order: an in-order queue, or an out-of-order one where a launch follows
/// the launches its `after` list names.
struct CaseOrder {
    index: u64,
    in_order: bool,
    after: Vec<u64>,
}

impl LaunchOrder for CaseOrder {
    fn key(&self) -> u64 {
        self.index
    }
    fn follows(&self, key: u64) -> bool {
        self.in_order || self.after.contains(&key)
    }
    fn settled(&self, _: u64) -> bool {
        self.in_order
    }
}
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Default)]
struct LaunchSpec {
    kernel: String,
    global: Vec<u64>,
    local: Option<Vec<u64>>,
    args: Vec<String>,
    after: Vec<usize>,
}

#[derive(Default)]
struct Case {
    launches: Vec<LaunchSpec>,
    out_of_order: bool,
    expect: Vec<String>,
    checks: Option<String>,
}

/// Parses the header; `Err` names what this harness does not support (the case is skipped).
fn parse(text: &str) -> Result<Case, String> {
    let mut c = Case::default();
    let dims = |v: &str| -> Result<Vec<u64>, String> {
        v.split(',')
            .map(|x| x.trim().parse::<u64>().map_err(|e| format!("{v}: {e}")))
            .collect()
    };
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("//") else {
            if line.trim().is_empty() {
                continue;
            }
            break;
        };
        let rest = rest.trim();
        let Some((key, value)) = rest.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if matches!(key.trim(), "kernel" | "launch") {
            c.launches.push(LaunchSpec {
                kernel: value.to_string(),
                ..LaunchSpec::default()
            });
            continue;
        }
        let cur = c.launches.last_mut();
        match (key.trim(), cur) {
            ("global", Some(l)) => {
                // `global: 64   local: 32` shares a line.
                let (g, loc) = match value.split_once("local:") {
                    Some((g, loc)) => (g.trim(), Some(loc.trim())),
                    None => (value, None),
                };
                l.global = dims(g)?;
                if let Some(loc) = loc {
                    l.local = if loc == "none" {
                        None
                    } else {
                        Some(dims(loc)?)
                    };
                }
            }
            ("local", Some(l)) => {
                l.local = if value == "none" {
                    None
                } else {
                    Some(dims(value)?)
                }
            }
            ("arg", Some(l)) => l.args.push(value.to_string()),
            ("after", Some(l)) => {
                l.after = value
                    .split(',')
                    .map(|x| x.trim().parse().map_err(|_| format!("after: {value}")))
                    .collect::<Result<_, String>>()?
            }
            ("queue", _) => c.out_of_order = value.starts_with("out-of-order"),
            ("expect", _) => c.expect.push(value.to_string()),
            ("checks", _) => c.checks = Some(value.to_string()),
            (k @ ("offset" | "release-before-launch" | "options" | "requires"), _) => {
                return Err(format!("`{k}:`"))
            }
            _ => {}
        }
    }
    Ok(c)
}

fn type_size(t: &str) -> Option<usize> {
    Some(match t {
        "char" | "uchar" => 1,
        "short" | "ushort" | "half" => 2,
        "int" | "uint" | "float" => 4,
        "long" | "ulong" | "double" => 8,
        _ => {
            let (base, n) = t.split_at(t.find(|c: char| c.is_ascii_digit())?);
            type_size(base)? * n.parse::<usize>().ok()?.max(1)
        }
    })
}

/// Encodes `value` (an integer or float literal) as little-endian `t`.
fn scalar(t: &str, v: &str) -> Option<Vec<u8>> {
    Some(match t {
        "float" => v.parse::<f32>().ok()?.to_le_bytes().to_vec(),
        "double" => v.parse::<f64>().ok()?.to_le_bytes().to_vec(),
        _ => {
            let n: i64 = match v.strip_prefix("0x") {
                Some(h) => i64::from_str_radix(h, 16).ok()?,
                None => v.parse().ok()?,
            };
            n.to_le_bytes()[..type_size(t)?].to_vec()
        }
    })
}

/// Fill pattern bytes for COUNT elements of TYPE; `None` for `fill=none` (uninitialised).
fn fill(t: &str, count: usize, how: &str) -> Result<Option<Vec<u8>>, String> {
    let elem = |x: f64| -> Vec<u8> {
        match t {
            "float" => (x as f32).to_le_bytes().to_vec(),
            "double" => x.to_le_bytes().to_vec(),
            _ => (x as i64).to_le_bytes()[..type_size(t).unwrap_or(4)].to_vec(),
        }
    };
    let (name, params) = match how.split_once('(') {
        Some((n, p)) => (n, p.trim_end_matches(')').split(',').collect::<Vec<_>>()),
        None => (how, vec![]),
    };
    let num = |i: usize, d: f64| {
        params
            .get(i)
            .and_then(|p| p.trim().parse::<f64>().ok())
            .unwrap_or(d)
    };
    let values: Vec<f64> = match name {
        "none" => return Ok(None),
        "zero" => vec![0.0; count],
        "ones" => vec![1.0; count],
        "iota" => (0..count)
            .map(|i| num(0, 0.0) + num(1, 1.0) * i as f64)
            .collect(),
        "random" => {
            // splitmix64 (the corpus's stream; exact values matter little for verdicts).
            let mut x = num(0, 0.0) as u64;
            let range = (params.len() >= 3).then(|| (num(1, 0.0), num(2, 1.0)));
            (0..count)
                .map(|_| {
                    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
                    let mut z = x;
                    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE5_E9B9);
                    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                    z ^= z >> 31;
                    match (range, t) {
                        (Some((lo, hi)), "float" | "double") => {
                            lo + (hi - lo) * (z >> 11) as f64 / (1u64 << 53) as f64
                        }
                        (Some((lo, hi)), _) => lo + (z % ((hi - lo) as u64 + 1)) as f64,
                        (None, "float" | "double") => (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0,
                        (None, _) => (z >> 16) as f64,
                    }
                })
                .collect()
        }
        "values" => {
            let v: Vec<f64> = params
                .iter()
                .filter_map(|p| p.trim().parse().ok())
                .collect();
            if v.is_empty() {
                return Err(format!("fill {how}"));
            }
            (0..count).map(|i| v[i % v.len()]).collect()
        }
        _ => return Err(format!("fill {how}")),
    };
    Ok(Some(values.iter().flat_map(|x| elem(*x)).collect()))
}

fn compile(path: &Path, out: &Path) -> Result<Vec<u8>, String> {
    // llvm-spirv-15 rejects some debug expressions; without -g only source lines are lost.
    compile_at(path, out, &["-O2", "-g"])
        .or_else(|_| compile_at(path, out, &["-O0", "-g"]))
        .or_else(|_| compile_at(path, out, &["-O2"]))
}

fn compile_at(path: &Path, out: &Path, flags: &[&str]) -> Result<Vec<u8>, String> {
    let bc = out.with_extension("bc");
    let spv = out.with_extension("spv");
    let st = Command::new("clang-15")
        .args([
            "-c",
            "-target",
            "spir64",
            "-emit-llvm",
            "-Xclang",
            "-cl-kernel-arg-info",
            "-x",
            "cl",
        ])
        .args(flags)
        .arg(path)
        .arg("-o")
        .arg(&bc)
        .status()
        .map_err(|e| format!("clang-15: {e}"))?;
    if !st.success() {
        return Err("clang-15 failed".into());
    }
    let st = Command::new("llvm-spirv-15")
        .arg(&bc)
        .arg("-o")
        .arg(&spv)
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("llvm-spirv-15: {e}"))?;
    if !st.success() {
        return Err("llvm-spirv-15 failed".into());
    }
    std::fs::read(&spv).map_err(|e| e.to_string())
}

fn run_case(path: &Path, tmp: &Path) -> Result<(Report, Vec<String>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let case = parse(&text)?;
    let spirv = compile(path, &tmp.join(path.file_stem().unwrap_or_default()))?;
    let program = Program::load(&spirv).map_err(|e| format!("load: {e}"))?;
    let checks: Checks = match &case.checks {
        Some(c) => c.parse()?,
        None => Checks::default(),
    };
    let session = Session::new(Config {
        checks,
        ..Config::default()
    });
    let mut named: Vec<(String, std::sync::Arc<Buffer>)> = vec![];
    let (schedule, _) = Schedule::from_lookup(|k| std::env::var(k).ok());
    for (li, spec) in case.launches.iter().enumerate() {
        let mut args = vec![];
        for (ai, a) in spec.args.iter().enumerate() {
            let w: Vec<&str> = a.split_whitespace().collect();
            match w.as_slice() {
                ["buffer", t, n, rest @ ..] => {
                    let count: usize = n.parse().map_err(|_| format!("arg {a}"))?;
                    let size = type_size(t).ok_or(format!("type {t}"))? * count;
                    let how = rest
                        .iter()
                        .find_map(|r| r.strip_prefix("fill="))
                        .unwrap_or("zero");
                    let name = rest
                        .iter()
                        .find_map(|r| r.strip_prefix("name="))
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("l{li}.arg{ai}"));
                    let buf = Buffer::new(size).ok_or("alloc")?;
                    let data = fill(t, count, how)?;
                    session.buffer_created(buf.id(), size as u64, data.is_some());
                    if let Some(d) = data {
                        buf.write(0, &d).map_err(|e| e.to_string())?;
                    }
                    named.push((name, buf.clone()));
                    args.push(ArgValue::Buffer {
                        buffer: buf,
                        offset: 0,
                        size: size as u64,
                    });
                }
                ["use", name] => {
                    let buf = named
                        .iter()
                        .find(|(n, _)| n == name)
                        .map(|(_, b)| b.clone())
                        .ok_or(format!("no buffer {name}"))?;
                    let size = buf.len() as u64;
                    args.push(ArgValue::Buffer {
                        buffer: buf,
                        offset: 0,
                        size,
                    });
                }
                ["local", t, n] => {
                    let count: u64 = n.parse().map_err(|_| format!("arg {a}"))?;
                    args.push(ArgValue::Local(
                        type_size(t).ok_or(format!("type {t}"))? as u64 * count,
                    ));
                }
                ["scalar", t, v] => {
                    args.push(ArgValue::Bytes(scalar(t, v).ok_or(format!("arg {a}"))?))
                }
                _ => return Err(format!("arg `{a}`")),
            }
        }
        let mut global = [1u64; 3];
        global[..spec.global.len()].copy_from_slice(&spec.global);
        let local = match &spec.local {
            Some(l) => {
                let mut x = [1u64; 3];
                x[..l.len()].copy_from_slice(l);
                x
            }
            // NULL local size: the largest divisor up to 64 in x, 1 elsewhere.
            None => [
                (1..=64.min(global[0]))
                    .rev()
                    .find(|d| global[0] % d == 0)
                    .unwrap_or(1),
                1,
                1,
            ],
        };
        let launch = Launch {
            kernel: spec.kernel.clone(),
            work_dim: spec.global.len() as u32,
            global_offset: [0; 3],
            global_size: global,
            local_size: local,
            args,
        };
        let order = CaseOrder {
            index: li as u64,
            in_order: !case.out_of_order,
            after: spec.after.iter().map(|&e| e as u64).collect(),
        };
        session
            .run_launch(
                &Device::new(2),
                &program,
                &launch,
                &schedule,
                li as u64,
                &order,
            )
            .map_err(|e| format!("run: {e}"))?;
    }
    Ok((session.report(), case.expect))
}

/// The corpus rule: each `expect:` matched by a distinct finding; no unexpected kinds.
fn verdict(r: &Report, expect: &[String]) -> Result<(), String> {
    let findings: Vec<serde_json::Value> = r.findings.iter().map(|f| f.to_json()).collect();
    let wanted: Vec<&String> = expect.iter().filter(|e| e.trim() != "none").collect();
    let mut used = vec![false; findings.len()];
    let mut kinds = vec![];
    for e in &wanted {
        let mut words = e.split_whitespace();
        let kind = words.next().unwrap_or_default();
        kinds.push(kind.to_string());
        let fields: Vec<(&str, &str)> = words.filter_map(|w| w.split_once('=')).collect();
        let hit = findings.iter().enumerate().find(|(i, f)| {
            !used[*i]
                && f["kind"] == kind
                && fields.iter().all(|(k, v)| match f[*k].as_u64() {
                    Some(n) => n.to_string() == *v,
                    None => f[*k] == *v,
                })
        });
        match hit {
            Some((i, _)) => used[i] = true,
            None => return Err(format!("missing `{e}`")),
        }
    }
    for f in &findings {
        let k = f["kind"].as_str().unwrap_or_default();
        if !kinds.iter().any(|w| w == k) {
            return Err(format!(
                "unexpected {k} {} {} {} buffer={}",
                f["race"], f["scope"], f["memory"], f["buffer"]
            ));
        }
    }
    Ok(())
}

fn cases(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            cases(&p, out);
        } else if p.extension().is_some_and(|e| e == "cl") {
            out.push(p);
        }
    }
}

#[test]
#[ignore = "needs clang-15, llvm-spirv-15 and the interpreter; run with --ignored"]
fn race_corpus_through_the_interpreter() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/kernels/races");
    let filter = std::env::var("SHADOWCL_CORPUS_FILTER").unwrap_or_default();
    let tmp = std::env::temp_dir().join(format!("shadowcl-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut all = vec![];
    cases(&root, &mut all);
    let (mut pass, mut fail, mut skip) = (0, 0, 0);
    for p in all.iter().filter(|p| p.to_string_lossy().contains(&filter)) {
        let name = p.strip_prefix(&root).unwrap_or(p).display().to_string();
        match run_case(p, &tmp) {
            Ok((r, expect)) => match verdict(&r, &expect) {
                Ok(()) => {
                    pass += 1;
                    println!("PASS {name}");
                }
                Err(why) => {
                    fail += 1;
                    println!("FAIL {name}: {why}");
                    if std::env::var_os("SHADOWCL_CORPUS_VERBOSE").is_some() {
                        print!("{}", r.render_text());
                    }
                }
            },
            Err(why) => {
                skip += 1;
                println!("SKIP {name}: {why}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    println!("{pass} passed, {fail} failed, {skip} skipped");
    assert!(pass > 0, "no case ran");
}
