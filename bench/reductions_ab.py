"""Reductions before and after issue 18, item 3, in one process: each function is compiled
twice, once as before (LLVM without `-force-ordered-reductions`) and once as now (ordered
vector reductions, codegen/jit.py LLVM_OPTIONS), and every callable is timed interleaved
with the others and with JAX (bench/timing.py). The on-disk cache is off (its key does not see
LLVM's options).

    python -m bench.reductions_ab [--only W2,W5] [--quick]

Prints nanoseconds per element of sums written as loops (`s += f(x[i])`) and of sums of
expressions (`np.sum(...)`), the same bits both ways (checked), and the
workloads' primal and value+gradient times in both spellings with their ratios to JAX's."""
import bench.threads  # noqa: F401  (before any numerical library)

import math
import os
import sys

import numpy as np

from bench import timing
from bench import vecmath_ab
from bench.vecmath_ab import sum_exp, sum_log, sum_tanh

os.environ["PYAD_CACHE"] = "0"


def sum_exp_weighted(x):
    s = 0.0
    for i in range(len(x)):
        s += math.exp(x[i]) * x[i]
    return s


def dot_self(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i]
    return s


def np_exp_weighted(x):
    return np.sum(np.exp(x) * x)


def np_tanh_mean(x):
    return np.mean(np.tanh(x) * x)


def np_squares(x):
    return np.sum((x - 2.5) ** 2)


def np_einsum_log(x):
    return np.einsum("i,i->", x, np.log(x))


def _compiled(thunk, now: bool):
    """Run `thunk` (which compiles what it calls) as pyad compiles now or as before."""
    import llvmlite.binding as llvm

    from pyad.codegen import jit
    jit.host_cpu()  # LLVM initialised: the options are set
    llvm.set_option("pyad", f"-force-ordered-reductions={'true' if now else 'false'}")
    try:
        return thunk()
    finally:
        llvm.set_option("pyad", "-force-ordered-reductions=true")


def _warm(g, x):
    """`g` with its primal and its value and gradient compiled."""
    g(x), g.value_and_grad(x)
    return g


def _same(a, b) -> bool:
    flat = [np.asarray(v, dtype=np.float64).ravel() for v in (a, b)]
    return flat[0].shape == flat[1].shape and bool(np.all(flat[0].view(np.int64)
                                                          == flat[1].view(np.int64)))


def _leaves(v) -> list:
    if isinstance(v, (tuple, list)):
        return [x for item in v for x in _leaves(item)]
    if isinstance(v, dict):
        return [x for k in sorted(v) for x in _leaves(v[k])]
    return [v]


def element_rows(plan: timing.Plan) -> list[str]:
    import pyad
    x = np.random.default_rng(0).uniform(0.1, 5.0, 4000)
    loops = (sum_exp, sum_exp_weighted, sum_log, sum_tanh, dot_self)
    funcs = loops + (np_exp_weighted, np_tanh_mean, np_squares, np_einsum_log)
    calls = {}
    for f in funcs:
        for now in (False, True):
            g = _compiled(lambda: _warm(pyad.jit_grad(f), x), now)
            calls[(f.__name__, now, "p")] = lambda g=g: g(x)
            calls[(f.__name__, now, "vg")] = lambda g=g: g.value_and_grad(x)
        for what in ("p", "vg"):
            assert all(_same(u, v) for u, v in zip(
                _leaves(calls[(f.__name__, False, what)]()),
                _leaves(calls[(f.__name__, True, what)]()))), f.__name__
    t = vecmath_ab.measure(calls, plan)
    rows = ["| function (4000 elements) | primal before | primal now | value+grad before | "
            "value+grad now |", "|---|---|---|---|---|"]
    for f in funcs:
        ns = [t[(f.__name__, now, what)] / len(x) * 1e9 for what in ("p", "vg")
              for now in (False, True)]
        rows.append(f"| `{f.__name__}` | " + " | ".join(f"{v:.2f}" for v in ns) + " |")
    return rows


def _check(before, now, what: str) -> None:
    """Both builds of a workload agree (the ordered reductions keep the order: the bits)."""
    for name in ("primal", "vgrad"):
        a, b = _leaves(getattr(before, name)()), _leaves(getattr(now, name)())
        assert len(a) == len(b), (what, name)
        for u, v in zip(a, b):
            np.testing.assert_allclose(v, u, rtol=1e-9, atol=1e-12, err_msg=f"{what} {name}")


def workload_rows(names: tuple[str, ...], plan: timing.Plan) -> list[str]:
    return vecmath_ab.workload_rows(
        names, plan, compiled=lambda thunk, old: _compiled(thunk, not old),
        labels=("reductions", "before", "now"), check=_check)


def main(argv: list[str]) -> None:
    vecmath_ab.ab_main(argv, "python -m bench.reductions_ab", __doc__, element_rows,
                       workload_rows)


if __name__ == "__main__":
    main(sys.argv[1:])
