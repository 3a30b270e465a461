//! Reports name the user's own files. Kernels are compiled from a copy of
//! the program source kept in the cache (`.../sources/<hash>/program.cl`), which is where the
//! debug info points; when the lines of a file under the source folders (`SHADOWCL_SOURCE_DIR`,
//! else the working directory) appear in that copy as a block, by content, a location inside
//! the block names the user's file and its own line. An application that concatenates several
//! files into one program gets each line mapped to the file it came from.

use parking_lot::Mutex;
use shadowcl_interpreter::SourceLoc;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Files looked at, and their size, at most: the working directory may be a large tree.
const MAX_FILES: usize = 2000;
const MAX_ENTRIES: usize = 20_000;
const MAX_FILE_BYTES: u64 = 1 << 20;
/// Extensions of kernel sources and the headers they are assembled from.
const EXTENSIONS: [&str; 5] = ["cl", "clh", "ocl", "h", "hpp"];
/// Folders never looked into.
const SKIPPED: [&str; 3] = ["target", "node_modules", "build"];

/// Lines `first..first + lines` of a program (1-based) are lines `1..` of `file`.
#[derive(Debug)]
struct Segment {
    first: u32,
    lines: u32,
    file: Arc<str>,
}

/// Where the lines of programs come from, found once per program file.
pub(crate) struct SourceMap {
    roots: Vec<PathBuf>,
    /// The candidate files and their lines, read at the first lookup.
    candidates: OnceLock<Vec<(Arc<str>, Vec<String>)>>,
    programs: Mutex<HashMap<Arc<str>, Arc<Vec<Segment>>>>,
}

impl SourceMap {
    pub(crate) fn new(roots: Vec<PathBuf>) -> SourceMap {
        SourceMap {
            roots,
            candidates: OnceLock::new(),
            programs: Mutex::new(HashMap::new()),
        }
    }

    /// `l` in the user's file its line came from, when there is one; else `l`.
    pub(crate) fn locate(&self, l: &SourceLoc) -> SourceLoc {
        let segments = self.segments(&l.file);
        segments
            .iter()
            .find(|s| (s.first..s.first + s.lines).contains(&l.line))
            .map_or_else(
                || l.clone(),
                |s| SourceLoc {
                    file: s.file.clone(),
                    line: l.line - s.first + 1,
                    column: l.column,
                },
            )
    }

    fn segments(&self, program: &Arc<str>) -> Arc<Vec<Segment>> {
        if let Some(s) = self.programs.lock().get(program) {
            return s.clone();
        }
        let found = Arc::new(self.find_segments(Path::new(&**program)));
        self.programs.lock().insert(program.clone(), found.clone());
        found
    }

    fn find_segments(&self, program: &Path) -> Vec<Segment> {
        let Ok(text) = std::fs::read_to_string(program) else {
            return Vec::new();
        };
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        let candidates = self.candidates.get_or_init(|| candidates(&self.roots));
        let mut taken = vec![false; lines.len()];
        let mut out = Vec::new();
        // Longer files first, so a file is not claimed by a shorter one it contains.
        for (file, body) in candidates {
            if Path::new(&**file) == program {
                continue;
            }
            let Some(at) = find_block(&lines, body, &taken) else {
                continue;
            };
            taken[at..at + body.len()]
                .iter_mut()
                .for_each(|t| *t = true);
            out.push(Segment {
                first: at as u32 + 1,
                lines: body.len() as u32,
                file: file.clone(),
            });
        }
        out
    }
}

/// Where `body` occurs in `lines` as consecutive lines not yet claimed.
fn find_block(lines: &[&str], body: &[String], taken: &[bool]) -> Option<usize> {
    if body.is_empty() || body.len() > lines.len() {
        return None;
    }
    (0..=lines.len() - body.len()).find(|&at| {
        !taken[at..at + body.len()].iter().any(|t| *t)
            && lines[at..at + body.len()]
                .iter()
                .zip(body)
                .all(|(a, b)| *a == b)
    })
}

/// The source files under `roots` (bounded), longest first, with their lines. A file of fewer
/// than two non-blank lines could match anywhere and is left out.
fn candidates(roots: &[PathBuf]) -> Vec<(Arc<str>, Vec<String>)> {
    let mut files: Vec<(Arc<str>, Vec<String>)> = Vec::new();
    let mut entries = 0usize;
    let mut stack: Vec<PathBuf> = roots.to_vec();
    while let Some(dir) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in read.flatten() {
            entries += 1;
            if entries > MAX_ENTRIES || files.len() >= MAX_FILES {
                break;
            }
            let path = e.path();
            let name = e.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                if !name.starts_with('.') && !SKIPPED.contains(&&*name) {
                    stack.push(path);
                }
            } else if kind.is_file()
                && path
                    .extension()
                    .is_some_and(|x| EXTENSIONS.iter().any(|e| x == *e))
                && e.metadata().is_ok_and(|m| m.len() <= MAX_FILE_BYTES)
            {
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                let body: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
                if body.iter().filter(|l| !l.trim().is_empty()).count() >= 2 {
                    let path = std::fs::canonicalize(&path).unwrap_or(path);
                    files.push((Arc::from(path.to_string_lossy().as_ref()), body));
                }
            }
        }
    }
    files.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_in_a_concatenation_name_the_files_it_came_from() {
        let dir = std::env::temp_dir().join(format!("shadowcl-sources-{}", std::process::id()));
        let user = dir.join("project");
        std::fs::create_dir_all(user.join("kernels")).unwrap();
        std::fs::write(user.join("kernels/common.h"), "#define N 64\n#define M 2\n").unwrap();
        std::fs::write(
            user.join("kernels/racy.cl"),
            "__kernel void k(__global int *a) {\n  a[0] = N;\n}\n",
        )
        .unwrap();
        std::fs::write(user.join("notes.txt"), "#define N 64\n#define M 2\n").unwrap();
        // The application reads both files and builds them as one program, after a line of
        // its own.
        let kept = dir.join("cache/program.cl");
        std::fs::create_dir_all(kept.parent().unwrap()).unwrap();
        std::fs::write(
            &kept,
            "// generated\n#define N 64\n#define M 2\n__kernel void k(__global int *a) {\n  a[0] = N;\n}\n",
        )
        .unwrap();
        let map = SourceMap::new(vec![user.clone()]);
        let at = |line| {
            map.locate(&SourceLoc {
                file: Arc::from(kept.to_string_lossy().as_ref()),
                line,
                column: 3,
            })
        };
        let racy = std::fs::canonicalize(user.join("kernels/racy.cl")).unwrap();
        let common = std::fs::canonicalize(user.join("kernels/common.h")).unwrap();
        assert_eq!(&*at(5).file, racy.to_str().unwrap());
        assert_eq!((at(5).line, at(5).column), (2, 3));
        assert_eq!(&*at(3).file, common.to_str().unwrap());
        assert_eq!(at(3).line, 2);
        // The application's own line stays in the kept copy.
        assert_eq!(&*at(1).file, kept.to_str().unwrap());
        assert_eq!(at(1).line, 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
