"""Runs bench/bench.c on every platform configuration and prints one table (medians, peak RSS,
ratios to PoCL and to Oclgrind). `pocl-forward-meta` is PoCL through ShadowCL's forwarding
mode (SHADOWCL_FORWARD) with metadata-only launch capture.
All platforms are measured in the same run on the same machine."""
import argparse, json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OCLGRIND_ICD = "/usr/lib/oclgrind/liboclgrind-rt-icd.so"
POCL_ICD = "/etc/OpenCL/vendors/pocl.icd"


def vendors(tmp, name, lib):
    d = os.path.join(tmp, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name + ".icd"), "w") as f:
        f.write(lib + "\n")
    return d


def run(exe, app, reps, scale, platforms, vend, extra_env):
    """One bench process; `platforms` are run side by side in it. Returns [(ms, rss)] in the
    order of `platforms`, or (None, error lines)."""
    env = dict(os.environ, OCL_ICD_VENDORS=vend, BENCH_PLATFORM="|".join(platforms), **extra_env)
    p = subprocess.run([exe, app, str(reps), str(scale)],
                       env=env, capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-3:]
    lines = [json.loads(l) for l in p.stdout.strip().splitlines() if l.startswith("{")]
    if len(lines) != len(platforms):
        return None, [f"expected {len(platforms)} result lines, got {len(lines)}"]
    return [(r["median_ms"], r["rss_kb"]) for r in lines], None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--lib-without-checker", default="",
                    help="the library built with the without-checker feature (ci/bench builds it): "
                         "the shadowcl-without-checker row")
    ap.add_argument("--scale", type=int, default=2, help="divides problem sizes (same for all)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--apps", default="vadd matmul reduce stencil priv_array divergent launches vadd:20 vadd:22 vadd:24 lastgroup",
                    help="launches: 10,000 launches of a 256-item vadd per repetition; "
                         "lastgroup: the last-work-group-done reduction (OpenCL C 3.0 "
                         "release/acquire: the memory model's cost); "
                         "vadd:N: one vadd of 2^N floats, whatever the scale (time and RSS "
                         "growth; Oclgrind rows only up to 2^22)")
    ap.add_argument("--rounds", type=int, default=5,
                    help="processes per app and row (Oclgrind's: one), the rounds "
                         "interleaved; the median of their medians is reported")
    ap.add_argument("--configs", default="", help="comma list of configurations to run (default: all)")
    a = ap.parse_args()
    if not os.path.isfile(a.lib):
        sys.exit(f"bench/run.py: no library at {a.lib}")
    # The capture of 10,000 launches and the reports fill gigabytes: never leave them behind.
    with tempfile.TemporaryDirectory(prefix="shadowcl-bench-") as tmp:
        bench(a, tmp)


def bench(a, tmp):
    exe = os.path.join(tmp, "bench")
    subprocess.run(["gcc", "-O2", "-o", exe, os.path.join(HERE, "bench.c"), "-lOpenCL", "-lm"], check=True)
    with open(POCL_ICD) as f:
        pocl_lib = f.read().strip()
    v_scl = vendors(tmp, "shadowcl", a.lib)
    v_bare = a.lib_without_checker and vendors(tmp, "shadowcl-without-checker", a.lib_without_checker)
    v_ocg = vendors(tmp, "oclgrind", OCLGRIND_ICD)
    nproc = os.cpu_count() or 1
    # Pass-through capture: ShadowCL forwards to PoCL and records launch metadata only.
    forward_env = {"SHADOWCL_FORWARD": pocl_lib, "SHADOWCL_CAPTURE": os.path.join(tmp, "capture"),
                   "SHADOWCL_CAPTURE_DATA": "none"}
    v_pair = vendors(tmp, "pocl-and-shadowcl", pocl_lib)
    with open(os.path.join(v_pair, "shadowcl.icd"), "w") as f:
        f.write(a.lib + "\n")
    # (row names, platform name prefixes, vendors folder, environment, repetitions). A config
    # of several rows runs them in one process, repetitions alternating.
    configs = [
        # PoCL directly and PoCL through ShadowCL's forwarding, side by side in one process
        # (same PoCL library, thread pool and moment): sub-millisecond kernels vary more between
        # processes (thread placement, frequency) than between the two.
        (("pocl", "pocl-forward-meta"), ("Portable", "ShadowCL capture"), v_pair, forward_env,
         max(a.reps, 31)),
        (("shadowcl-off-1t",), ("ShadowCL",), v_scl,
         {"SHADOWCL_CHECKS": "none", "SHADOWCL_THREADS": "1"}, a.reps),
        ((f"shadowcl-off-{nproc}t",), ("ShadowCL",), v_scl, {"SHADOWCL_CHECKS": "none"}, a.reps),
        # The same launches on the library built without the checker: SHADOWCL_CHECKS=none
        # must cost nothing the checker brings (goal: within 5%).
        (("shadowcl-without-checker",), ("ShadowCL",), v_bare, {}, a.reps),
        # The default schedule (auto: lockstep where the work-items agree) against
        # run-to-barrier (quantum 0) and lockstep throughout (quantum 1): the default-schedule
        # question, docs/performance.md.
        (("shadowcl-off-q0-1t",), ("ShadowCL",), v_scl,
         {"SHADOWCL_CHECKS": "none", "SHADOWCL_QUANTUM": "0", "SHADOWCL_THREADS": "1"}, a.reps),
        ((f"shadowcl-off-q0-{nproc}t",), ("ShadowCL",), v_scl,
         {"SHADOWCL_CHECKS": "none", "SHADOWCL_QUANTUM": "0"}, a.reps),
        (("shadowcl-checks",), ("ShadowCL",), v_scl, {}, a.reps),
        (("shadowcl-checks-q0",), ("ShadowCL",), v_scl, {"SHADOWCL_QUANTUM": "0"}, a.reps),
        (("shadowcl-checks-q1",), ("ShadowCL",), v_scl, {"SHADOWCL_QUANTUM": "1"}, a.reps),
        # As `shadowcl run` does: JSON and SARIF reports (their cost must not grow with the
        # number of launches).
        (("shadowcl-checks-report",), ("ShadowCL",), v_scl,
         {"SHADOWCL_REPORT": os.path.join(tmp, "r.json"),
          "SHADOWCL_SARIF": os.path.join(tmp, "r.sarif")}, a.reps),
        # The application's own optimised build (SHADOWCL_COMPILE=app) instead of the default
        # source-faithful one, which keeps every global/local access of the source.
        (("shadowcl-checks-app",), ("ShadowCL",), v_scl, {"SHADOWCL_COMPILE": "app"}, a.reps),
        (("oclgrind",), ("Oclgrind",), v_ocg, {}, 3),
        (("oclgrind-races",), ("Oclgrind",), v_ocg, {"OCLGRIND_DATA_RACES": "1"}, 3),
    ]
    if not v_bare:
        configs = [c for c in configs if c[0] != ("shadowcl-without-checker",)]
    if a.configs:
        wanted = set(a.configs.split(","))
        configs = [c for c in configs if wanted & set(c[0])]
    names = [n for c in configs for n in c[0]]
    # Every process but Oclgrind's (seconds per repetition) runs --rounds times, the rounds
    # interleaved, and a row is the median of its processes' medians: on a small shared
    # machine one process's median moves by a third from run to run (thread placement,
    # frequency), more than the differences the rows are read for.
    repeated = {name for c in configs for name in c[0] if not name.startswith("oclgrind")}
    rows = {}
    pair_ratios = {}
    checks_samples = {}
    for app in a.apps.split():
        samples = {}
        for rnd in range(max(a.rounds, 1)):
            for row_names, plats, vend, env, reps in configs:
                if rnd > 0 and not repeated & set(row_names):
                    continue
                # Oclgrind needs minutes per repetition past 2^22 elements.
                if app.startswith("vadd:") and int(app[5:]) > 22 and plats == ("Oclgrind",):
                    continue
                got, err = run(exe, app, reps, a.scale, plats, vend, env)
                if "SHADOWCL_CAPTURE" in env:
                    # Thousands of launch records: gone, and on the disk, before the next
                    # row runs, so that their write-back does not slow it down. Removed by
                    # `rm`: walking them here would grow this process, whose peak RSS every
                    # later bench process inherits through fork (Linux keeps ru_maxrss
                    # across exec).
                    subprocess.run(["rm", "-rf", env["SHADOWCL_CAPTURE"]], check=False)
                    os.sync()
                if err:
                    print(f"# {app} on {'+'.join(row_names)} failed: {' | '.join(err)}",
                          file=sys.stderr)
                    continue
                for name, res in zip(row_names, got):
                    samples.setdefault(name, []).append(res)
                if row_names == ("pocl", "pocl-forward-meta") and got[0][0] > 0:
                    pair_ratios.setdefault(app, []).append(got[1][0] / got[0][0])
        checks_samples[app] = samples
        for name in names:
            got = sorted(samples.get(name, []))
            rows[(app, name)] = got[len(got) // 2] if got else (None, None)
    hdr = f"{'app':8} {'config':18} {'median ms':>10} {'RSS MB':>8} {'x PoCL':>8} {'vs ocg-races':>12}"
    print(f"scale={a.scale} reps={a.reps} (oclgrind reps=3, one process; pocl rows >= 31 reps; every "
          f"other row the median of {a.rounds} processes); ratios: time / PoCL time; "
          "oclgrind-races time / this time; RSS: peak of the application process itself "
          "(pocl and pocl-forward-meta share one)")
    print(hdr)
    print("-" * len(hdr))
    failed = 0
    for app in a.apps.split():
        base = rows.get((app, "pocl"), (None, None))[0]
        ocg = rows.get((app, "oclgrind-races"), (None, None))[0]
        for name in names:
            ms, rss = rows[(app, name)]
            if ms is None:
                skipped = app.startswith("vadd:") and int(app[5:]) > 22 and name.startswith("oclgrind")
                print(f"{app:8} {name:18} {'skipped' if skipped else 'failed':>10}")
                failed += not skipped
                continue
            x = f"{ms / base:.2f}" if base else "-"
            v = f"{ocg / ms:.1f}x" if ocg and ms else "-"
            print(f"{app:8} {name:18} {ms:10.2f} {rss / 1024:8.1f} {x:>8} {v:>12}")
    # Ratios of two rows paired by round (their processes ran one after the other), the
    # median per app: what each goal is read from.
    def paired(num, den, goal):
        got = []
        for app in a.apps.split():
            x, y = (checks_samples.get(app, {}).get(n) for n in (num, den))
            if x and y and len(x) == len(y):
                r = sorted(p[0] / q[0] for p, q in zip(x, y))
                got.append(f"{app} {r[len(r) // 2]:.2f}x")
        if got:
            print(f"{num} / {den}, median of the per-round ratios: " + "  ".join(got) + f" ({goal})")

    off_row = f"shadowcl-off-{nproc}t"
    paired("shadowcl-checks", off_row, "goal <= 2x")
    # Checks none must cost nothing the checker brings.
    paired(off_row, "shadowcl-without-checker", "goal <= 1.05x")
    # What the JSON and SARIF reports add to the same checked launches (their cost must not
    # grow with the number of launches: the `launches` app's ratio is the one the goal is for).
    paired("shadowcl-checks-report", "shadowcl-checks", "goal for launches <= 1.2x")
    if pair_ratios:
        # Per process: forwarded median / direct median; the median of those per app.
        med = {app: sorted(r)[len(r) // 2] for app, r in pair_ratios.items()}
        per_app = "  ".join(f"{app} {x:.2f}x" for app, x in med.items())
        print(f"PoCL via ShadowCL forward (metadata capture) / PoCL direct, paired in one "
              f"process, median of {a.rounds}: {per_app}; worst {max(med.values()):.2f}x "
              f"(target <= 1.2x)")
    if failed:
        print(f"{failed} rows failed (the lines starting with # say why)", file=sys.stderr)
        sys.exit(1)

if __name__ == "__main__":
    main()
