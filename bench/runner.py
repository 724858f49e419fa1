"""Runs the benchmark: every selected tool on every selected workload, in one process,
interleaved; first-call times and memory in child processes; the call-overhead benchmark in a
child; writes latest.md, latest.json and latest.png into the output directory.

A tool that is not installed is skipped with a line saying so; a tool that fails on a workload
(compile error, crash of its child, wrong shape...) becomes a row "failed: <reason>"."""
import dataclasses
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Callable

import numpy as np

from bench import firstcall, gradcheck, machine, report, timing
from bench.tools import TOOL_NAMES, Bound, NotApplicable, load
from bench.workloads import WORKLOADS, Workload

RESULTS = Path(__file__).parent / "results"
WARM_CACHE_TOOLS = ("pyad", "numba", "jax", "c")  # tools with an on-disk cache (C: the .so)
# A first call this long is not repeated for warm-up: eager tools on W3 (compilers are faster).
LONG_CALL_S = 5.0


@dataclass
class Config:
    """What to run: workload and tool names, the size, the timing plan, which child-process
    measurements to make, where to write, and where progress lines go."""

    workloads: tuple[str, ...] = tuple(WORKLOADS)
    tools: tuple[str, ...] = TOOL_NAMES
    size: str = "full"
    plan: timing.Plan = timing.FULL
    firstcall: bool = True     # cold first-call children, with peak memory
    warm_cache: bool = True    # and warm-cache ones, for the tools that have a cache
    overhead: bool = True      # the call-overhead micro-benchmark (a child process)
    out: Path = RESULTS
    command: str = "python -m bench"  # the command line, recorded in the results
    log: Callable[[str], None] = field(default=lambda s: print(s, file=sys.stderr, flush=True))


def _reason(e: BaseException) -> str:
    lines = [ln for ln in str(e).strip().splitlines() if ln.strip()]
    return f"{type(e).__name__}: {lines[0].strip() if lines else ''}"[:200]


def _load_tools(cfg: Config) -> tuple[dict[str, ModuleType], dict[str, str]]:
    loaded, skipped = {}, {}
    for name in cfg.tools:
        try:
            loaded[name] = load(name)
        except ImportError as e:
            skipped[name] = f"not installed ({e})"
            cfg.log(f"skipping {name}: not installed ({e})")
    return loaded, skipped


def _first_calls(cfg: Config, tool: str, w: Workload) -> dict:
    out = {"cold": firstcall.run(tool, w.name, cfg.size, "cold")}
    if tool in WARM_CACHE_TOOLS and cfg.warm_cache and out["cold"]["status"] == "ok":
        out["warm"] = firstcall.run(tool, w.name, cfg.size, "warm")
    return out


def _warm(fn: Callable[[], object]) -> tuple[object, float]:
    """The first call of `fn` (it may compile), then a warm call unless the first one took
    over LONG_CALL_S: the last result and the time of the last call."""
    for _ in range(2):
        t0 = time.perf_counter()
        result = fn()
        dt = time.perf_counter() - t0
        if dt > LONG_CALL_S:
            break
    return result, dt


def _check(b: Bound, w: Workload, coords: list, fd: np.ndarray,
           ref: float) -> tuple[dict, dict[str, float]]:
    """Warm up; the gradient and value errors, the tape size and the time of one warm call of
    each kind."""
    value, one = _warm(b.primal)
    row = {"value_err": abs(float(value) - ref) / max(abs(ref), 1e-300)}
    times = {"primal": one}
    if b.vgrad is not None:
        result, times["vgrad"] = _warm(b.vgrad)
        value, grads = b.unpack(result)
        row["grad_err"] = gradcheck.max_rel_error(gradcheck.pick(grads, w, coords), fd)
        row["value_err"] = max(row["value_err"], abs(value - ref) / max(abs(ref), 1e-300))
    if b.tape_bytes is not None:
        row["tape_bytes"] = b.tape_bytes()
    return row, times


def _workload(cfg: Config, w: Workload, tools: dict[str, ModuleType]) -> dict:
    args = w.args(cfg.size)
    ref = gradcheck.reference(w, args)
    coords = gradcheck.coordinates(w, args)
    fd = gradcheck.finite_differences(w, args, coords)
    rows, bound, one_call = {}, {}, {}
    for name, module in tools.items():
        row: dict = {}
        if cfg.firstcall:
            cfg.log(f"{w.name} {name}: first call in a child process")
            row["first_call"] = _first_calls(cfg, name, w)
            cold = row["first_call"]["cold"]
            if cold["status"] == "skip":
                continue
            if cold.get("crashed"):  # would take this process down too
                rows[name] = dict(row, status="failed", reason=cold["reason"])
                continue
        try:
            b = module.bind(w, args)
            checked, times = _check(b, w, coords, fd, ref)
            row.update(checked)
        except NotApplicable:
            continue
        except Exception as e:  # a failing tool is a row, not the end of the run
            rows[name] = dict(row, status="failed", reason=_reason(e))
            cfg.log(f"{w.name} {name}: failed: {rows[name]['reason']}")
            continue
        rows[name], bound[name] = dict(row, status="ok"), b
        one_call.update({(name, kind): t for kind, t in times.items()})
    cfg.log(f"{w.name}: timing {', '.join(bound)}")
    calls = {(n, "primal"): b.primal for n, b in bound.items()}
    calls.update({(n, "vgrad"): b.vgrad for n, b in bound.items() if b.vgrad is not None})
    stats = timing.measure(calls, one_call, cfg.plan)
    for (name, kind), s in stats.items():
        rows[name][f"{kind}_s"] = s.median_s
        rows[name][f"{kind}_min_s"] = s.min_s
        rows[name][f"{kind}_calls"] = s.calls
    _ratios(rows)
    return {"title": w.title, "size": w.describe(cfg.size), "value": ref,
            "fd_coordinates": len(coords), "rows": rows}


def _ratios(rows: dict) -> None:
    mine = rows.get("pyad", {})
    for row in rows.values():
        if "primal_s" in row and "vgrad_s" in row:
            row["vgrad_over_primal"] = row["vgrad_s"] / row["primal_s"]
        row["pyad_over"] = {k: mine[f"{k}_s"] / row[f"{k}_s"] for k in ("primal", "vgrad")
                            if f"{k}_s" in mine and f"{k}_s" in row}


def _overhead(cfg: Config) -> dict:
    quick = cfg.plan != timing.FULL
    cmd = [sys.executable, "-m", "bench.overhead", "--json"] + (["--quick"] if quick else [])
    cfg.log("call-overhead micro-benchmark (child process)")
    p = subprocess.run(cmd, cwd=firstcall.REPO, capture_output=True, text=True)
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["no message"])[-1]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def run(cfg: Config) -> dict:
    """Run everything `cfg` selects, write the three result files, return the results."""
    tools, skipped = _load_tools(cfg)
    results = {
        "command": cfg.command, "size": cfg.size, "plan": dataclasses.asdict(cfg.plan), "skipped": skipped,
        "machine": machine.describe({n: m.version() for n, m in tools.items()}),
        "workloads": {name: _workload(cfg, WORKLOADS[name], tools) for name in cfg.workloads},
    }
    if cfg.overhead:
        results["overhead"] = _overhead(cfg)
    cfg.out.mkdir(parents=True, exist_ok=True)
    (cfg.out / "latest.json").write_text(json.dumps(results, indent=1) + "\n")
    (cfg.out / "latest.md").write_text(report.markdown(results))
    try:
        from bench import chart
        chart.save(results, cfg.out / "latest.png")
    except ImportError as e:
        cfg.log(f"no chart: matplotlib is not installed ({e})")
    return results
