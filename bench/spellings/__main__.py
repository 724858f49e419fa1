"""`python -m bench.spellings`: every loop spelling of each workload (bench/spellings/) under
pyad, with JAX's value+grad of the workload's array spelling measured in the same run.

    python -m bench.spellings [--only W1,W3] [--size tiny|full] [--quick]

Per spelling: primal time, value+grad time, their ratio (issue 17's target: <= 3), pyad's
tape bytes and their share per trip of the workload's outer loop (the target: at most the
state the loop carries between trips, bench.spellings.LIVE), which targets hold, the
largest gradient difference from the reference spelling's (relative to the gradient's
largest element), and value+grad over JAX's. All timings are interleaved
(bench.timing), so drifts of the machine hit every row alike."""
import bench.threads  # noqa: F401  (before any numerical library)

import argparse
import shlex
import sys
from functools import partial

import numpy as np

import pyad
from bench import timing
from bench.runner import _warm
from bench.spellings import LIVE, SPELLINGS
from bench.workloads import WORKLOADS


def _jax(w, args):
    """JAX's bound value+grad of the array spelling, or the reason it is missing."""
    try:
        from bench.tools import jax_tool
    except ImportError as e:
        return None, f"jax not installed ({e})"
    return jax_tool.bind(w, args), ""


def _grad_diff(g, ref) -> float:
    scale = max(float(np.max(np.abs(np.asarray(r)))) for r in ref)
    return max(float(np.max(np.abs(np.asarray(a) - np.asarray(r)))) for a, r in zip(g, ref)) \
        / max(scale, 1e-300)


def measure(name: str, size: str, plan: timing.Plan) -> dict:
    """Rows (label -> figures) for one workload; "JAX" holds JAX's times if installed."""
    w = WORKLOADS[name]
    args = w.args(size)
    calls, one, rows = {}, {}, {}
    ref_grads = None
    for label, fn in SPELLINGS[name]:
        f = pyad.jit_grad(fn, argnums=w.wrt)
        primal, vgrad = partial(f, *args), partial(f.value_and_grad, *args)
        _, one[(label, "primal")] = _warm(primal)
        (_, grads), one[(label, "vgrad")] = _warm(vgrad)
        ref_grads = grads if ref_grads is None else ref_grads
        rows[label] = {"tape_bytes": f.tape_bytes(*args),
                       "grad_diff": _grad_diff(grads, ref_grads)}
        calls[(label, "primal")], calls[(label, "vgrad")] = primal, vgrad
    bound, why = _jax(w, args)
    if bound is not None:
        for kind, fn in (("primal", bound.primal), ("vgrad", bound.vgrad)):
            _, one[("JAX", kind)] = _warm(fn)
            calls[("JAX", kind)] = fn
        rows["JAX"] = {}
    stats = timing.measure(calls, one, plan)
    for (label, kind), st in stats.items():
        rows[label][kind + "_s"] = st.median_s
    what, values, trips = LIVE[name]
    return {"rows": rows, "jax_missing": why, "size": w.describe(size), "title": w.title,
            "trips": trips(*args), "live": (what, values)}


def table(name: str, res: dict) -> str:
    jax = res["rows"].get("JAX")
    what, values = res["live"]
    trips, target = res["trips"], 8 * values
    out = [f"### {name} {res['title']} ({res['size']})", "",
           f"Outer loop: {trips} trips; the state it carries: {what}, {values} value(s), so the "
           f"tape target is {target} bytes per trip.", "",
           "| spelling | primal ms | value+grad ms | vg/primal | tape bytes | tape B/trip "
           "| targets met | grad diff | vg / JAX vg |",
           "|---|---:|---:|---:|---:|---:|---|---:|---:|"]
    for label, r in res["rows"].items():
        if label == "JAX":
            out.append(f"| JAX jit (array spelling) | {1e3 * r['primal_s']:.4g} | "
                       f"{1e3 * r['vgrad_s']:.4g} | {r['vgrad_s'] / r['primal_s']:.2f} | | | | "
                       "| 1 |")
            continue
        vs_jax = f"{r['vgrad_s'] / jax['vgrad_s']:.2f}" if jax else "-"
        ratio, per_trip = r["vgrad_s"] / r["primal_s"], r["tape_bytes"] / max(trips, 1)
        met = [m for m, ok in (("time", ratio <= 3.0), ("tape", per_trip <= target)) if ok]
        out.append(f"| {label} | {1e3 * r['primal_s']:.4g} | {1e3 * r['vgrad_s']:.4g} | "
                   f"{ratio:.2f} | {r['tape_bytes']} | {per_trip:.0f} | "
                   f"{' + '.join(met) or 'neither'} | {r['grad_diff']:.1e} | {vs_jax} |")
    if res["jax_missing"]:
        out += ["", f"JAX: {res['jax_missing']}"]
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.spellings",
                                description=__doc__.splitlines()[0])
    p.add_argument("--only", default=",".join(SPELLINGS), help="workloads, e.g. W1,W3")
    p.add_argument("--size", choices=("tiny", "full"), default="full")
    p.add_argument("--quick", action="store_true", help="fewer timing rounds")
    a = p.parse_args(argv)
    names = [s.strip() for s in a.only.split(",") if s.strip()]
    unknown = [n for n in names if n not in SPELLINGS]
    if unknown:
        p.error(f"unknown workload: {', '.join(unknown)} (known: {', '.join(SPELLINGS)})")
    print(f"`{shlex.join(['python', '-m', 'bench.spellings', *argv])}`\n")
    for name in names:
        print(table(name, measure(name, a.size, timing.QUICK if a.quick else timing.FULL)))


if __name__ == "__main__":
    main(sys.argv[1:])
