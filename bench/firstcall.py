"""First-call time and peak memory of one tool on one workload, in a fresh process.

    python -m bench.firstcall TOOL WORKLOAD SIZE [--cache]

The child imports the tool, makes the arguments, then times binding plus the first call of
the value-and-gradient (of the primal for primal-only tools): the compile time a user waits
for. With --cache the tool's on-disk cache is enabled, in $BENCH_CACHE_DIR. It prints one JSON
line: status "ok" (with import_s, first_s, peak_rss_mib: the peak RSS after the first call and,
unless that took a second or more, a second one; base_rss_mib: the peak RSS before binding;
for pyad, phases_s: where the compile time went, `f.timings()` summed over signatures),
"n/a" (no cache), "skip" (no such workload for the tool) or "failed". `run()` starts the child:
"cold" in fresh cache directories, "warm" after a first child filled them."""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TIMEOUT_S = 600
SECOND_CALL_BELOW_S = 1.0  # the peak RSS includes a second call when the first is quick


def _rss_mib() -> float:
    """Peak resident set size of this process: VmHWM on Linux (ru_maxrss survives exec, so it
    would report the parent's peak), ru_maxrss elsewhere."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _child(tool: str, workload: str, size: str, cache: bool) -> dict:
    import bench.threads  # noqa: F401  (before any numerical library)
    from bench.tools import CacheUnsupported, NotApplicable, load
    from bench.workloads import WORKLOADS

    t0 = time.perf_counter()
    module = load(tool)
    import_s = time.perf_counter() - t0
    w = WORKLOADS[workload]
    args = w.args(size)
    base = _rss_mib()
    try:
        t0 = time.perf_counter()
        bound = module.bind(w, args, cache=cache)
        call = bound.vgrad or bound.primal
        call()
        first_s = time.perf_counter() - t0
        if first_s < SECOND_CALL_BELOW_S:
            call()
    except CacheUnsupported as e:
        return {"status": "n/a", "reason": str(e)}
    except NotApplicable as e:
        return {"status": "skip", "reason": str(e)}
    return {"status": "ok", "import_s": import_s, "first_s": first_s,
            "base_rss_mib": base, "peak_rss_mib": _rss_mib(), **_phases(call)}


def _phases(call) -> dict:
    """pyad's split of the first call's compile time (`f.timings()`, seconds per phase
    summed over signatures: parse, AD, LLVM, ..., cache), or nothing for other tools."""
    fn = getattr(call, "func", None)
    owner = getattr(fn, "__self__", fn)
    if not callable(getattr(owner, "timings", None)):
        return {}
    total: dict = {}
    for phases in owner.timings().values():
        for k, v in phases.items():
            total[k] = total.get(k, 0.0) + v
    return {"phases_s": {k: v for k, v in total.items() if v > 0}}


def _spawn(tool: str, workload: str, size: str, cache: bool, env: dict) -> dict:
    cmd = [sys.executable, "-m", "bench.firstcall", tool, workload, size]
    cmd += ["--cache"] if cache else []
    try:
        p = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True,
                           timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"status": "failed", "reason": f"no answer within {TIMEOUT_S} s"}
    lines = p.stdout.strip().splitlines()
    if p.returncode == 0 and lines:
        return json.loads(lines[-1])
    err = [ln for ln in p.stderr.strip().splitlines() if ln.strip()]
    why = f"killed by signal {-p.returncode}" if p.returncode < 0 else f"exit code {p.returncode}"
    return {"status": "failed", "reason": f"{why}: {err[-1] if err else 'no message'}",
            "crashed": p.returncode < 0}


def run(tool: str, workload: str, size: str, mode: str) -> dict:
    """Measure in a child process; `mode` is "cold" or "warm"."""
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as d:
        env = dict(os.environ, BENCH_CACHE_DIR=d, NUMBA_CACHE_DIR=os.path.join(d, "numba"),
                   XDG_CACHE_HOME=os.path.join(d, "xdg"))
        if mode == "cold":
            return _spawn(tool, workload, size, False, env)
        fill = _spawn(tool, workload, size, True, env)
        return fill if fill["status"] != "ok" else _spawn(tool, workload, size, True, env)


def main(argv: list[str]) -> None:
    tool, workload, size = argv[:3]
    try:
        out = _child(tool, workload, size, "--cache" in argv[3:])
    except Exception as e:  # reported, not raised: the parent prints a row
        lines = str(e).strip().splitlines()
        out = {"status": "failed", "reason": f"{type(e).__name__}: {lines[0] if lines else ''}"}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
