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


def run(exe, app, reps, scale, platform, vend, extra_env):
    env = dict(os.environ, OCL_ICD_VENDORS=vend, BENCH_PLATFORM=platform, **extra_env)
    p = subprocess.run([exe, app, str(reps), str(scale)],
                       env=env, capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        return None, None, p.stderr.strip().splitlines()[-3:]
    res = json.loads(p.stdout.strip().splitlines()[-1])
    return res["median_ms"], res["rss_kb"], None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--scale", type=int, default=2, help="divides problem sizes (same for all)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--apps", default="vadd matmul reduce stencil")
    ap.add_argument("--rounds", type=int, default=5,
                    help="processes per app for the cheap PoCL/forwarding rows, interleaved; "
                         "their median is reported")
    ap.add_argument("--configs", default="", help="comma list of configurations to run (default: all)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="shadowcl-bench-")
    exe = os.path.join(tmp, "bench")
    subprocess.run(["gcc", "-O2", "-o", exe, os.path.join(HERE, "bench.c"), "-lOpenCL", "-lm"], check=True)
    with open(POCL_ICD) as f:
        pocl_lib = f.read().strip()
    v_pocl = vendors(tmp, "pocl", pocl_lib)
    v_scl = vendors(tmp, "shadowcl", a.lib)
    v_ocg = vendors(tmp, "oclgrind", OCLGRIND_ICD)
    nproc = os.cpu_count() or 1
    # Pass-through capture: ShadowCL forwards to PoCL and records launch metadata only.
    forward_env = {"SHADOWCL_FORWARD": pocl_lib, "SHADOWCL_CAPTURE": os.path.join(tmp, "capture"),
                   "SHADOWCL_CAPTURE_DATA": "none"}
    configs = [
        # Sub-millisecond kernels: the forwarding comparison needs many repetitions (both
        # are cheap), and several processes (--rounds).
        ("pocl", "Portable", v_pocl, {}, max(a.reps, 31)),
        ("pocl-forward-meta", "ShadowCL capture", v_scl, forward_env, max(a.reps, 31)),
        ("shadowcl-off-1t", "ShadowCL", v_scl, {"SHADOWCL_CHECKS": "none", "SHADOWCL_THREADS": "1"}, a.reps),
        (f"shadowcl-off-{nproc}t", "ShadowCL", v_scl, {"SHADOWCL_CHECKS": "none"}, a.reps),
        # Quantum 1 (round-robin, one instruction per turn) runs in lockstep, one dispatch per
        # op for the whole work-group: the fast schedule (the default is quantum 0).
        ("shadowcl-off-q1-1t", "ShadowCL", v_scl,
         {"SHADOWCL_CHECKS": "none", "SHADOWCL_QUANTUM": "1", "SHADOWCL_THREADS": "1"}, a.reps),
        (f"shadowcl-off-q1-{nproc}t", "ShadowCL", v_scl,
         {"SHADOWCL_CHECKS": "none", "SHADOWCL_QUANTUM": "1"}, a.reps),
        ("shadowcl-checks", "ShadowCL", v_scl, {}, a.reps),
        ("oclgrind", "Oclgrind", v_ocg, {}, 3),
        ("oclgrind-races", "Oclgrind", v_ocg, {"OCLGRIND_DATA_RACES": "1"}, 3),
    ]
    if a.configs:
        configs = [c for c in configs if c[0] in a.configs.split(",")]
    # Sub-millisecond times vary more between processes (thread placement, frequency) than
    # within one: the cheap PoCL and forwarding rows run in several interleaved processes.
    cheap = {"pocl", "pocl-forward-meta"}
    rows = {}
    for app in a.apps.split():
        samples = {}
        for rnd in range(max(a.rounds, 1)):
            for name, plat, vend, env, reps in configs:
                if rnd > 0 and name not in cheap:
                    continue
                ms, rss, err = run(exe, app, reps, a.scale, plat, vend, env)
                if err:
                    print(f"# {app} on {name} failed: {' | '.join(err)}", file=sys.stderr)
                elif ms is not None:
                    samples.setdefault(name, []).append((ms, rss))
        for name, *_ in configs:
            got = sorted(samples.get(name, []))
            rows[(app, name)] = got[len(got) // 2] if got else (None, None)
    hdr = f"{'app':8} {'config':18} {'median ms':>10} {'RSS MB':>8} {'x PoCL':>8} {'vs ocg-races':>12}"
    print(f"scale={a.scale} reps={a.reps} (oclgrind reps=3; pocl rows >= 31 reps, median of "
          f"{a.rounds} processes); ratios: time / PoCL time; "
          "oclgrind-races time / this time; RSS: peak of the application process itself")
    print(hdr)
    print("-" * len(hdr))
    for app in a.apps.split():
        base = rows.get((app, "pocl"), (None, None))[0]
        ocg = rows.get((app, "oclgrind-races"), (None, None))[0]
        for name, *_ in configs:
            ms, rss = rows[(app, name)]
            if ms is None:
                print(f"{app:8} {name:18} {'failed':>10}")
                continue
            x = f"{ms / base:.2f}" if base else "-"
            v = f"{ocg / ms:.1f}x" if ocg and ms else "-"
            print(f"{app:8} {name:18} {ms:10.2f} {rss / 1024:8.1f} {x:>8} {v:>12}")
    fwd = [rows[(app, "pocl-forward-meta")][0] / rows[(app, "pocl")][0]
           for app in a.apps.split()
           if rows.get((app, "pocl"), (None,))[0] and rows.get((app, "pocl-forward-meta"), (None,))[0]]
    if fwd:
        print(f"PoCL via ShadowCL forward (metadata capture) / PoCL direct: worst {max(fwd):.2f}x "
              f"(target <= 1.2x)")


if __name__ == "__main__":
    main()
