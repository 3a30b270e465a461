"""A checked run ended by SIGTERM (as CI harnesses end tools at their timeout) still leaves
its report: written when the signal comes, marked incomplete, with the race the launch still
running had met, and the process ends with the signal's status. A child forked from a
checked process and ended by SIGTERM ends alone (Python's multiprocessing does this)."""
import json
import os
import signal
import subprocess
import sys
import time

SRC = """
__kernel void slow_race(__global int *out, __global int *work, int rounds) {
  // Every work-group writes out[0]: a race between groups, met by the second group.
  if (get_local_id(0) == 0) out[0] = (int)get_group_id(0);
  // Then each work-item computes for a while, so the launch runs long.
  int acc = (int)get_global_id(0);
  for (int i = 0; i < rounds; i++) acc = acc * 3 + i;
  work[get_global_id(0)] = acc;
}
"""


def child():
    import numpy as np
    import pyopencl as cl

    ctx = cl.create_some_context(interactive=False)
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, SRC).build()
    mf = cl.mem_flags
    out = cl.Buffer(ctx, mf.READ_WRITE, 4)
    work = cl.Buffer(ctx, mf.READ_WRITE, 4 * 64 * 4096)
    prg.slow_race(q, (64 * 4096,), (64,), out, work, np.int32(20000))
    q.flush()
    print("launched", flush=True)
    q.finish()
    print("finished: the launch was meant to be ended by SIGTERM", flush=True)


def forks():
    import pyopencl as cl

    ctx = cl.create_some_context(interactive=False)
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, "__kernel void k(__global int *o) { o[get_global_id(0)] = 1; }")
    o = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * 64)
    prg.build().k(q, (64,), None, o)
    q.finish()
    pid = os.fork()
    if pid == 0:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
        os._exit(3)
    _, status = os.waitpid(pid, 0)
    time.sleep(1)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM, status
    print("parent alive", flush=True)


def main():
    report = os.environ["SHADOWCL_REPORT"]
    f = subprocess.run([sys.executable, __file__, "forks"], stdout=subprocess.PIPE, text=True)
    assert f.returncode == 0 and "parent alive" in f.stdout, f"forking parent: {f}"
    with open(report) as r:
        assert "incomplete" not in json.load(r), "a forked child's SIGTERM marked the report"
    p = subprocess.Popen([sys.executable, __file__, "child"], stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line.strip() == "launched", f"child said {line!r}"
    time.sleep(4)
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError("the process did not end within 30 s of SIGTERM")
    assert p.returncode == -signal.SIGTERM, f"ended with {p.returncode}, not by SIGTERM"
    with open(report) as f:
        r = json.load(f)
    assert "SIGTERM" in r.get("incomplete", ""), f"not marked incomplete: {r.get('incomplete')}"
    races = [
        x for x in r["findings"]
        if x["kind"] == "data-race" and (x.get("buffer") or "").startswith("out")
    ]
    assert races, f"the race on out met before SIGTERM is not in the report: {r['findings']}"
    print("killed run: PASS, report written at SIGTERM with", len(r["findings"]), "finding(s)")


if __name__ == "__main__":
    {"child": child, "forks": forks}.get(sys.argv[1] if sys.argv[1:] else "", main)()
