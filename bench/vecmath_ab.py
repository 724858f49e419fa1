"""The math kernels (codegen/lower/vecmath.py) against the libm calls they replaced, in one
process: each function is compiled twice, once with the op table's lowering and once with the
rows' old one (libm, LLVM's exp/log intrinsics; replaced in the table while it compiles), and
every callable is timed interleaved with the others and with JAX (bench/timing.py).

    python -m bench.vecmath_ab [--only W2,W5] [--quick]

Prints two tables: nanoseconds per element of `out[i] = f(x[i])` loops (vectorized with the
kernels) and of `s += f(x[i])` loops (a running sum: scalar under strict IEEE rules, so the
kernel runs one element at a time), and the workloads' primal and value+gradient times in
both spellings, with their ratios to JAX's."""
import bench.threads  # noqa: F401  (before any numerical library)

import argparse
import dataclasses
import math
import sys
import time

import numpy as np

from bench import timing
from bench.accuracy import exp_loop, log_loop, tanh_loop
from bench.tools import jax_tool, pyad_array_tool, pyad_tool
from bench.workloads import WORKLOADS
from pyad.ir import ops

OLD = {"exp": ("intrinsic", "llvm.exp"), "log": ("intrinsic", "llvm.log"),
       "expm1": ("libm", "expm1"), "log1p": ("libm", "log1p"), "tanh": ("libm", "tanh")}


def _compiled(thunk, old: bool):
    """Run `thunk` (which compiles what it calls) with the old lowering if `old`."""
    now = {k: ops.OPS[k] for k in OLD}
    if old:
        for k, lower in OLD.items():
            ops.OPS[k] = dataclasses.replace(now[k], lower=lower)
    try:
        return thunk()
    finally:
        ops.OPS.update(now)


def sum_exp(x):
    s = 0.0
    for i in range(len(x)):
        s += math.exp(x[i])
    return s


def sum_log(x):
    s = 0.0
    for i in range(len(x)):
        s += math.log(x[i])
    return s


def sum_tanh(x):
    s = 0.0
    for i in range(len(x)):
        s += math.tanh(x[i])
    return s


def measure(calls: dict, plan: timing.Plan) -> dict:
    one = {}
    for key, fn in calls.items():
        fn()
        t0 = time.perf_counter()
        fn()
        one[key] = time.perf_counter() - t0
    return {k: s.median_s for k, s in timing.measure(calls, one, plan).items()}


def element_rows(plan: timing.Plan) -> list[str]:
    import pyad
    x = np.random.default_rng(0).uniform(0.1, 5.0, 4000)
    funcs = (exp_loop, log_loop, tanh_loop, sum_exp, sum_log, sum_tanh)
    calls = {}
    for f in funcs:
        for old in (True, False):
            g = _compiled(lambda: _warm(pyad.jit_grad(f), x), old)
            calls[(f.__name__, old)] = (lambda g=g: g(x))
    t = measure(calls, plan)
    rows = ["| loop (4000 elements) | libm, ns/element | kernel, ns/element | libm / kernel |",
            "|---|---|---|---|"]
    for f in funcs:
        a, b = t[(f.__name__, True)] / len(x) * 1e9, t[(f.__name__, False)] / len(x) * 1e9
        rows.append(f"| `{f.__name__}` | {a:.2f} | {b:.2f} | {a / b:.2f} |")
    return rows


def _warm(g, *args):
    g(*args)
    return g


def workload_rows(names: tuple[str, ...], plan: timing.Plan, compiled=None,
                  labels: tuple[str, str, str] = ("lowering", "libm", "kernels"),
                  check=None) -> list[str]:
    """Primal and value+gradient of the workloads `names`, both spellings, built by
    `compiled(thunk, old)` both ways (default: this module's lowering switch), ratios to
    JAX; `labels` name the column and the two builds; `check(old_bound, new_bound, what)`,
    if given, compares the two builds' results."""
    compiled = compiled or _compiled
    rows = [f"| workload | spelling | {labels[0]} | primal ÷ JAX | value+grad ÷ JAX |",
            "|---|---|---|---|---|"]
    for name in names:
        w = WORKLOADS[name]
        args = w.args("full")
        calls = {}
        j = jax_tool.bind(w, args)
        calls[("jax", "p")], calls[("jax", "vg")] = j.primal, j.vgrad
        for spelling, tool in (("loop", pyad_tool), ("array", pyad_array_tool)):
            bound = {old: compiled(lambda: _bound(tool, w, args), old) for old in (True, False)}
            if check is not None:
                check(bound[True], bound[False], f"{name} {spelling}")
            for old, b in bound.items():
                calls[(spelling, old, "p")], calls[(spelling, old, "vg")] = b.primal, b.vgrad
        t = measure(calls, plan)
        for spelling in ("loop", "array"):
            for old in (True, False):
                rows.append(f"| {name} | {spelling} | {labels[1] if old else labels[2]} | "
                            f"{t[(spelling, old, 'p')] / t[('jax', 'p')]:.2f} | "
                            f"{t[(spelling, old, 'vg')] / t[('jax', 'vg')]:.2f} |")
    return rows


def _bound(tool, w, args):
    b = tool.bind(w, args)
    b.primal(), b.vgrad()   # compiles both
    return b


def ab_main(argv: list[str], prog: str, doc: str, elements, workloads) -> None:
    """The command line of an A/B bench: its per-element table (`elements(plan)`), then its
    workload table (`workloads(names, plan)`)."""
    p = argparse.ArgumentParser(prog=prog, description=doc.splitlines()[0])
    p.add_argument("--only", default="W2,W5", help="workloads (default: W2,W5)")
    p.add_argument("--quick", action="store_true", help="fewer timing rounds")
    args = p.parse_args(argv)
    plan = timing.QUICK if args.quick else timing.FULL
    print("\n".join(elements(plan)), end="\n\n")
    print("\n".join(workloads(tuple(args.only.split(",")), plan)))


def main(argv: list[str]) -> None:
    ab_main(argv, "python -m bench.vecmath_ab", __doc__, element_rows, workload_rows)


if __name__ == "__main__":
    main(sys.argv[1:])
