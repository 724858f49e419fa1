"""Micro-benchmarks: `A @ B` of n x n float64 matrices for n = 8 .. 512 (and `A @ x` of a
vector) through a pyad-compiled function, NumPy (its BLAS, one thread) and `jax.jit` (if installed); the
value and gradient of `np.sum(np.tanh(X @ W))` with respect to W through pyad and JAX; and the
throughput of `np.exp`, `np.log`, `np.tanh` of a vector (elements per ns) through pyad, NumPy
and JAX; all timed in this process, interleaved (bench/timing.py), one thread
(bench/threads.py).

    python -m bench.micro [--quick] [--only matmul,matvec,grad,math] [--out FILE.md]

JAX gets its arguments as device arrays made once (no copy per call); pyad and NumPy take
NumPy arrays and return a new one. Ratios are time / NumPy's time (or JAX's): below 1 is
faster."""
import bench.threads  # noqa: F401  (before any numerical library)

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import pyad
from bench import machine, timing
from bench.report import fmt_time

SIZES = (8, 16, 32, 64, 128, 256, 512)
GRAD_SIZES = (16, 64, 256)


def product(a, b):
    return a @ b


def tanh_loss(x, w):
    return np.sum(np.tanh(x @ w))


def vexp(x):
    return np.exp(x)


def vlog(x):
    return np.log(x)


def vtanh(x):
    return np.tanh(x)


# name -> (pyad's function, NumPy's, JAX's name, the input range)
MATH = {"exp": (vexp, np.exp, "exp", (-5.0, 5.0)), "log": (vlog, np.log, "log", (1e-3, 1e3)),
        "tanh": (vtanh, np.tanh, "tanh", (-3.0, 3.0))}
MATH_SIZES = (1_000, 10_000, 100_000)


def _jax():
    """jax and jax.numpy with float64, or None when JAX is not installed."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    return jax, jnp


def _time(callables: dict, plan: timing.Plan) -> dict:
    one = {}
    for key, fn in callables.items():
        fn()   # compile / warm up
        t0 = time.perf_counter()
        fn()
        one[key] = time.perf_counter() - t0
    return {k: s.median_s for k, s in timing.measure(callables, one, plan).items()}


def _ratio(t: dict, a: str, b: str) -> str:
    return f"{t[a] / t[b]:.2f}" if a in t and b in t else ""


def matmul_rows(plan: timing.Plan, jx, vector: bool = False) -> list[str]:
    """`A @ B` of n x n matrices, or `A @ x` of a vector (`vector`)."""
    rng = np.random.default_rng(0)
    pf = pyad.jit_grad(product)
    jf = jx[0].jit(lambda a, b: a @ b) if jx else None
    rows = ["| n | pyad | NumPy | JAX jit | pyad / NumPy | pyad / JAX |", "|---|---|---|---|---|---|"]
    for n in SIZES:
        a, b = rng.standard_normal((n, n)), rng.standard_normal(n if vector else (n, n))
        if np.abs(pf(a, b) - a @ b).max() > 1e-12 * n:
            raise AssertionError(f"pyad's product differs from NumPy's at n={n}")
        calls = {"pyad": lambda: pf(a, b), "numpy": lambda: a @ b}
        if jf:
            da, db = jx[1].asarray(a), jx[1].asarray(b)
            calls["jax"] = lambda: jf(da, db).block_until_ready()
        t = _time(calls, plan)
        rows.append(f"| {n} | {fmt_time(t['pyad'])} | {fmt_time(t['numpy'])} | "
                    f"{fmt_time(t.get('jax'))} | {_ratio(t, 'pyad', 'numpy')} | "
                    f"{_ratio(t, 'pyad', 'jax')} |")
    return rows


def grad_rows(plan: timing.Plan, jx) -> list[str]:
    rng = np.random.default_rng(1)
    pf = pyad.jit_grad(tanh_loss, argnums=1)
    jf = None
    if jx:
        jax, jnp = jx
        jf = jax.jit(jax.value_and_grad(lambda x, w: jnp.sum(jnp.tanh(x @ w)), argnums=1))
    rows = ["| n (X: 4n x n, W: n x n) | pyad | JAX jit | pyad / JAX |", "|---|---|---|---|"]
    for n in GRAD_SIZES:
        x, w = rng.standard_normal((4 * n, n)) / n, rng.standard_normal((n, n))
        calls = {"pyad": lambda: pf.value_and_grad(x, w)}
        if jf:
            dx, dw = jx[1].asarray(x), jx[1].asarray(w)
            calls["jax"] = lambda: jax.block_until_ready(jf(dx, dw))
            v, g = pf.value_and_grad(x, w)
            jv, jg = jf(dx, dw)
            if abs(v - float(jv)) > 1e-9 * abs(v) + 1e-9 or \
                    np.abs(g - np.asarray(jg)).max() > 1e-9 * n:
                raise AssertionError(f"pyad's value and gradient differ from JAX's at n={n}")
        t = _time(calls, plan)
        rows.append(f"| {n} | {fmt_time(t['pyad'])} | {fmt_time(t.get('jax'))} | "
                    f"{_ratio(t, 'pyad', 'jax')} |")
    return rows


def math_rows(plan: timing.Plan, jx) -> list[str]:
    """Elements per ns of each elementwise function: each call makes a new array (as
    NumPy's and JAX's do)."""
    rng = np.random.default_rng(2)
    rows = ["| function | n | pyad | NumPy | JAX jit | pyad / NumPy | pyad / JAX |",
            "|---|---|---|---|---|---|---|"]
    for name, (mine, theirs, jname, (lo, hi)) in MATH.items():
        pf = pyad.jit_grad(mine)
        jf = jx[0].jit(getattr(jx[1], jname)) if jx else None
        for n in MATH_SIZES:
            x = rng.uniform(lo, hi, n)
            if np.abs(pf(x) - theirs(x)).max() > 1e-14 * np.abs(theirs(x)).max():
                raise AssertionError(f"pyad's {name} differs from NumPy's at n={n}")
            calls = {"pyad": lambda: pf(x), "numpy": lambda: theirs(x)}
            if jf:
                dx = jx[1].asarray(x)
                calls["jax"] = lambda: jf(dx).block_until_ready()
            t = _time(calls, plan)
            rate = {k: f"{n / (v * 1e9):.2f}" for k, v in t.items()}
            # times per element: a ratio below 1 is pyad faster
            rows.append(f"| {name} | {n} | {rate['pyad']} | {rate['numpy']} | "
                        f"{rate.get('jax', '')} | {_ratio(t, 'pyad', 'numpy')} | "
                        f"{_ratio(t, 'pyad', 'jax')} |")
    return rows


PARTS = ("matmul", "matvec", "grad", "math")


def markdown(quick: bool, parts: tuple[str, ...] = PARTS) -> str:
    plan = timing.QUICK if quick else timing.FULL
    jx = _jax()
    versions = {"numpy": np.__version__}
    if jx:
        versions["jax"] = jx[0].__version__
    m = machine.describe(versions)
    out = []
    if "matmul" in parts:
        out += ["## Matrix product: `A @ B`, n x n float64", "", *matmul_rows(plan, jx), ""]
    if "matvec" in parts:
        out += ["## Matrix-vector product: `A @ x`, A n x n (C order), float64", "",
                *matmul_rows(plan, jx, vector=True), ""]
    if "grad" in parts:
        out += ["## Value and gradient of `np.sum(np.tanh(X @ W))` with respect to W", "",
                *grad_rows(plan, jx), ""]
    if "math" in parts:
        out += ["## Elementwise math: `np.exp(x)`, `np.log(x)`, `np.tanh(x)` of a float64 "
                "vector, elements per ns (higher is faster; the ratios are of times)", "",
                *math_rows(plan, jx), ""]
    out += [f"Median time per call, interleaved, one thread. {machine.one_line(m)}; "
           + ", ".join(f"{k} {v}" for k, v in versions.items())
           + ("" if jx else "; JAX not installed") + ".",
           "Command: `python -m bench.micro" + (" --quick" if quick else "")
           + ("" if len(parts) == len(PARTS) else f" --only {','.join(parts)}") + "`."]
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.micro", description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer timing rounds")
    p.add_argument("--only", default=",".join(PARTS),
                   help=f"tables to measure, of {', '.join(PARTS)} (default: all)")
    p.add_argument("--out", type=Path, help="also write the table to this Markdown file")
    args = p.parse_args(argv)
    text = markdown(args.quick, tuple(args.only.split(",")))
    print(text, end="")
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main(sys.argv[1:])
