"""What the generators in icd/tools share: where generated files go, how entry points are
found in the sources, and writing (or, with `--check`, comparing) a generated file.

Every generated file lives in icd/src/gen/ and is written already formatted (rustfmt with the
crate's edition and default settings, as `cargo fmt` formats it here), so running a generator
on an up-to-date tree changes nothing.
"""
import os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", "src"))
GEN = os.path.join(SRC, "gen")
# The workspace's edition (Cargo.toml [workspace.package]); there is no rustfmt.toml.
EDITION = "2021"

# An entry point: `pub unsafe extern "C" fn clXxx(` (or `pub(crate)`), wherever it is.
ENTRY = re.compile(r'\bpub(?:\(crate\))? unsafe extern "C" fn (cl\w+)\s*\(')
# Any function with the C ABI named cl*, to catch entry points the rule above would miss.
ANY_C_FN = re.compile(r'^[^\n]*\bextern "C" fn (cl\w+)\s*\(', re.M)


def module_path(rel):
    """The Rust path of the module in file `rel` (relative to icd/src): `api/mem.rs` ->
    `crate::api::mem`, `forward/mod.rs` -> `crate::forward`, `lib.rs` -> `crate`."""
    parts = rel[:-3].split(os.sep)
    if parts[-1] in ("mod", "lib"):
        parts.pop()
    return "::".join(["crate"] + parts)


def rust_files(root, skip=()):
    """Every .rs file under `root` (recursively, in a stable order), relative to icd/src,
    leaving out the directories in `skip` (relative to icd/src)."""
    skip = {os.path.normpath(os.path.join(SRC, s)) for s in skip}
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if os.path.join(d, x) not in skip)
        out += [os.path.relpath(os.path.join(d, f), SRC) for f in sorted(files) if f.endswith(".rs")]
    return sorted(out)


def entry_points(root, slots, skip=()):
    """Slot name -> Rust path of its implementation, for every entry point defined in the
    files under `root` (see `rust_files`). Exits with an error when a slot is defined twice,
    or when a C-ABI `cl*` function named like a slot is not `pub unsafe extern "C"`: either
    would otherwise silently leave the slot to a generated stub."""
    found, errors = {}, []
    for rel in rust_files(root, skip):
        text = open(os.path.join(SRC, rel)).read()
        mod = module_path(rel)
        for m in ENTRY.finditer(text):
            name = m.group(1)
            if name in found:
                errors.append(f"{name} is defined in {found[name]} and in {mod}")
            found[name] = f"{mod}::{name}"
        for m in ANY_C_FN.finditer(text):
            if m.group(1) in slots and not ENTRY.search(m.group(0)):
                errors.append(f"{rel}: `{m.group(0).strip()}` is not `pub unsafe extern \"C\"`, "
                              "so the generator would not see it")
    if errors:
        sys.exit("\n".join(errors))
    return found


def rustfmt(text):
    """`text` as `cargo fmt` would format it."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "generated.rs")
        with open(path, "w") as f:
            f.write(text)
        subprocess.run(["rustfmt", "--edition", EDITION, path], check=True)
        with open(path) as f:
            return f.read()


def emit(path, text, check):
    """Writes the formatted `text` to `path`; with `check`, writes nothing and returns whether
    `path` already holds exactly that."""
    text = rustfmt(text)
    rel = os.path.relpath(path, os.path.join(SRC, "..", ".."))
    if not check:
        with open(path, "w") as f:
            f.write(text)
        return True
    try:
        with open(path) as f:
            same = f.read() == text
    except FileNotFoundError:
        same = False
    if not same:
        print(f"{rel} is stale: run python3 icd/tools/{os.path.basename(sys.argv[0])}",
              file=sys.stderr)
    return same


def check_flag():
    """Whether the command line is `--check` (any other argument is an error)."""
    args = sys.argv[1:]
    if args not in ([], ["--check"]):
        sys.exit(f"usage: {os.path.basename(sys.argv[0])} [--check]")
    return args == ["--check"]
