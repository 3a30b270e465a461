//! Suppressions (`SHADOWCL_SUPPRESSIONS`) and kernel selection (`SHADOWCL_KERNELS`): which
//! findings the report leaves out, and which kernels are checked at all.
//!
//! A suppressions file has one rule per line; blank lines and lines starting with `#` are
//! ignored (a `#` later in a line is part of a pattern: buffers can be named `buffer#3`).
//! A rule is whitespace-separated `field:pattern` pairs; it matches a finding when every
//! field matches:
//!
//! | field | matched against |
//! |---|---|
//! | `kind` | the finding's kind, as the report names it (`data-race`, `out-of-bounds`, ...) |
//! | `kernel` | the finding's kernel, or the kernel of either access (races between kernels) |
//! | `buffer` | the kernel argument, `__local` variable or `buffer#<id>` the finding names |
//! | `file` | either access's source file, or `file:line` (`*.cl`, `*/reduce.cl:42`) |
//!
//! Patterns are globs: `*` matches any characters (`/` too), `?` one character.

use crate::report::{Finding, FindingKind};
use std::path::Path;

/// Whether `text` matches the glob `pattern` (`*`: any characters, `?`: one character).
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti) = (0, 0);
    // The last `*` seen and the text position it was tried at: on a mismatch, let it take
    // one more character (linear backtracking suffices for `*`-only globs).
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(&c) if c == '?' || c == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// A comma-separated list of globs (`SHADOWCL_KERNELS`); empty: everything matches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Patterns(Vec<String>);

impl Patterns {
    pub fn parse(list: &str) -> Patterns {
        Patterns(
            list.split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(String::from)
                .collect(),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `name` matches one of the patterns (or there are none).
    pub fn matches(&self, name: &str) -> bool {
        self.0.is_empty() || self.0.iter().any(|p| glob_match(p, name))
    }

    /// The list as written, comma separated.
    pub fn list(&self) -> String {
        self.0.join(",")
    }
}

/// The fields a rule may constrain.
pub const FIELDS: [&str; 4] = ["kind", "kernel", "buffer", "file"];

/// One rule of a suppressions file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The line as written (trimmed), to name the rule in reports.
    pub text: String,
    /// Its line number in the file (1-based).
    pub line: usize,
    kind: Option<String>,
    kernel: Option<String>,
    buffer: Option<String>,
    file: Option<String>,
}

impl Rule {
    fn parse(text: &str, line: usize) -> Result<Rule, String> {
        let mut rule = Rule {
            text: text.to_string(),
            line,
            kind: None,
            kernel: None,
            buffer: None,
            file: None,
        };
        for part in text.split_whitespace() {
            let Some((field, pattern)) = part.split_once(':') else {
                return Err(format!(
                    "`{part}` is not field:pattern (fields: {})",
                    FIELDS.join(", ")
                ));
            };
            if pattern.is_empty() {
                return Err(format!("`{field}:` has no pattern"));
            }
            let slot = match field {
                "kind" => &mut rule.kind,
                "kernel" => &mut rule.kernel,
                "buffer" => &mut rule.buffer,
                "file" => &mut rule.file,
                _ => {
                    return Err(format!(
                        "unknown field `{field}` (fields: {})",
                        FIELDS.join(", ")
                    ))
                }
            };
            if slot.is_some() {
                return Err(format!("field `{field}` given twice"));
            }
            *slot = Some(pattern.to_string());
        }
        if let Some(k) = &rule.kind {
            // A pattern that names no kind is a typo that would silently suppress nothing.
            if !FindingKind::ALL.iter().any(|n| glob_match(k, n.name())) {
                return Err(format!(
                    "kind `{k}` names no finding kind (kinds: {})",
                    FindingKind::ALL.map(FindingKind::name).join(", ")
                ));
            }
        }
        Ok(rule)
    }

    /// Whether every field of the rule matches `f`.
    pub fn matches(&self, f: &Finding) -> bool {
        let sides = || [&f.first, &f.second].into_iter().flatten();
        let kind = self
            .kind
            .as_ref()
            .is_none_or(|p| glob_match(p, f.kind.name()));
        let kernel = self
            .kernel
            .as_ref()
            .is_none_or(|p| glob_match(p, &f.kernel) || sides().any(|s| glob_match(p, &s.kernel)));
        let buffer = self
            .buffer
            .as_ref()
            .is_none_or(|p| f.buffer.as_deref().is_some_and(|b| glob_match(p, b)));
        let file = self.file.as_ref().is_none_or(|p| {
            sides()
                .filter_map(|s| s.location.as_ref())
                .any(|l| glob_match(p, &l.file) || glob_match(p, &format!("{}:{}", l.file, l.line)))
        });
        kind && kernel && buffer && file
    }
}

/// The rules of a suppressions file, in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Suppressions {
    /// The file they came from, for messages.
    pub file: String,
    pub rules: Vec<Rule>,
}

impl Suppressions {
    /// Parses a suppressions file's text; the error names `file:line` and what is wrong.
    pub fn parse(file: &str, text: &str) -> Result<Suppressions, String> {
        let mut rules = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            rules.push(Rule::parse(line, i + 1).map_err(|e| format!("{file}:{}: {e}", i + 1))?);
        }
        Ok(Suppressions {
            file: file.to_string(),
            rules,
        })
    }

    /// Reads and parses the file at `path`.
    pub fn load(path: &Path) -> Result<Suppressions, String> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
        Suppressions::parse(&name, &text)
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The index of the first rule that matches `f`.
    pub fn find(&self, f: &Finding) -> Option<usize> {
        self.rules.iter().position(|r| r.matches(f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Side;
    use shadowcl_interpreter::SourceLoc;

    #[test]
    fn globs() {
        assert!(glob_match("reduce*", "reduce_local"));
        assert!(glob_match("*", ""));
        assert!(glob_match("a?c", "abc"));
        assert!(!glob_match("a?c", "ac"));
        assert!(glob_match("*.cl:4?", "/src/k/reduce.cl:42"));
        assert!(!glob_match("*.cl:4?", "/src/k/reduce.cl:420"));
        assert!(glob_match("*a*b*c", "xxaybzzbc"));
        assert!(!glob_match("*a*b*c", "xxaybzzbcd"));
        assert!(!glob_match("reduce", "reduce2"));
        assert!(glob_match("buffer#3", "buffer#3"));
    }

    #[test]
    fn kernel_patterns() {
        let p = Patterns::parse(" reduce*, scan ,");
        assert!(p.matches("reduce_sum") && p.matches("scan"));
        assert!(!p.matches("scanner") && !p.matches("vadd"));
        assert_eq!(p.list(), "reduce*,scan");
        assert!(Patterns::parse("").matches("anything"));
    }

    fn side(kernel: &str, file: &str, line: u32) -> Side {
        Side {
            access: "write".into(),
            global_id: Some([1, 0, 0]),
            local_id: Some([1, 0, 0]),
            group_id: Some([0, 0, 0]),
            location: Some(SourceLoc {
                file: file.into(),
                line,
                column: 3,
            }),
            launch: 0,
            kernel: kernel.into(),
            group_copy: false,
            host: false,
            candidates: Vec::new(),
        }
    }

    fn race(kernel: &str, buffer: &str, first: Side, second: Side) -> Finding {
        Finding {
            synchronisation: None,
            kind: FindingKind::DataRace,
            race: None,
            scope: None,
            memory: None,
            launch: 0,
            kernel: kernel.into(),
            buffer: Some(buffer.into()),
            offset: Some(0),
            index: Some(0),
            first: Some(first),
            second: Some(second),
            count: 1,
            message: String::new(),
        }
    }

    #[test]
    fn a_rule_matches_when_all_its_fields_do() {
        let s = Suppressions::parse(
            "s.supp",
            "# known races\n\
             \n\
             kind:data-race kernel:reduce* buffer:scratch\n\
             \tfile:*/util.cl:1?   \n\
             kind:*-race kernel:producer\n",
        )
        .unwrap();
        assert_eq!(s.rules.len(), 3);
        assert_eq!(s.rules[1].line, 4);
        assert_eq!(s.rules[1].text, "file:*/util.cl:1?");
        let f = race(
            "reduce_sum",
            "scratch",
            side("reduce_sum", "/p/k.cl", 7),
            side("reduce_sum", "/p/k.cl", 9),
        );
        assert_eq!(s.find(&f), Some(0));
        // One field off and the rule does not match.
        let other_buffer = race(
            "reduce_sum",
            "out",
            f.first.clone().unwrap(),
            f.second.clone().unwrap(),
        );
        assert_eq!(s.find(&other_buffer), None);
        let mut not_a_race = f.clone();
        not_a_race.kind = FindingKind::OutOfBounds;
        assert_eq!(s.find(&not_a_race), None);
        // `file` matches either access, by file or by file:line.
        let util = race(
            "vadd",
            "a",
            side("vadd", "/p/k.cl", 3),
            side("vadd", "/p/util.cl", 12),
        );
        assert_eq!(s.find(&util), Some(1));
        let util_far = race(
            "vadd",
            "a",
            side("vadd", "/p/k.cl", 3),
            side("vadd", "/p/util.cl", 120),
        );
        assert_eq!(s.find(&util_far), None);
        // `kernel` matches the kernel of either access (a race between kernels).
        let between = race(
            "consumer",
            "q",
            side("producer", "/p/k.cl", 1),
            side("consumer", "/p/k.cl", 2),
        );
        assert_eq!(s.find(&between), Some(2));
        // A finding without a buffer or locations does not match rules that ask for them.
        let mut bare = f.clone();
        bare.buffer = None;
        bare.first = None;
        bare.second = None;
        assert_eq!(s.find(&bare), None);
    }

    #[test]
    fn malformed_lines_name_file_and_line() {
        let err = |text: &str| Suppressions::parse("x.supp", text).unwrap_err();
        assert_eq!(
            err("kind:data-race\n\nkernal:foo\n"),
            "x.supp:3: unknown field `kernal` (fields: kind, kernel, buffer, file)"
        );
        assert!(err("data-race").starts_with("x.supp:1: `data-race` is not field:pattern"));
        assert!(err("kernel:").contains("has no pattern"));
        assert!(err("kernel:a kernel:b").contains("given twice"));
        assert!(err("kind:data-rase").contains("names no finding kind"));
        assert!(Suppressions::parse("x", "# only a comment\n\n")
            .unwrap()
            .is_empty());
        let missing = Suppressions::load(Path::new("/nonexistent/s.supp")).unwrap_err();
        assert!(missing.starts_with("/nonexistent/s.supp: "), "{missing}");
    }
}
