"""Accuracy of pyad's elementwise math kernels (codegen/lower/vecmath.py): the largest error in
ulps over a sweep of inputs, measured against mpmath at 120 bits (pip install mpmath), and
the same for NumPy (glibc's libm) for comparison.

    python -m bench.accuracy [--n N] [--out FILE.md]

The inputs per function: N evenly spaced points over its interesting range, N random points
with a random exponent (every binade of the range), N random points near the cancelling
spots (0 for expm1 and tanh, 1 for log), and the edge values (overflow and underflow
thresholds, subnormals, the powers of two around the range limits). The kernels run inside a
compiled element loop, so the vector body and its remainder are both measured.
"""
import argparse
import math
import sys
from pathlib import Path

import numpy as np


def exp_loop(x):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = math.exp(x[i])
    return out


def expm1_loop(x):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = math.expm1(x[i])
    return out


def log_loop(x):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = math.log(x[i])
    return out


def log1p_loop(x):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = math.log1p(x[i])
    return out


def tanh_loop(x):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = math.tanh(x[i])
    return out


def _spread(rng, n, lo_exp, hi_exp, signed):
    """n random doubles with exponents uniform in [lo_exp, hi_exp)."""
    x = rng.uniform(1.0, 2.0, n) * 2.0 ** rng.integers(lo_exp, hi_exp, n)
    return x * rng.choice([-1.0, 1.0], n) if signed else x


def inputs(name: str, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if name == "exp":
        parts = [np.linspace(-745.2, 709.8, n), _spread(rng, n, -60, 10, True),
                 rng.uniform(-1.0, 1.0, n), [709.782712893384, 709.7827128933841, -708.4,
                                             -745.1332191019411, -745.1332191019412, -740.0,
                                             1e300, -1e300]]
    elif name == "expm1":
        parts = [np.linspace(-40.0, 709.78, n), _spread(rng, n, -60, 10, True),
                 rng.uniform(-1.0, 1.0, n), [0.3465, -0.3466, 0.6931, 709.78, 709.79, 1e300, -1e300,
                                                       1e-300]]
    elif name == "log":
        parts = [np.linspace(1e-3, 1e3, n), _spread(rng, n, -1074, 1024, False),
                 rng.uniform(0.5, 2.0, n), 1.0 + _spread(rng, n, -52, -1, True),
                 [5e-324, 2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308,
                  0.7071067811865476, 1.4142135623730951]]
    elif name == "log1p":
        parts = [np.linspace(-0.999, 1e3, n), _spread(rng, n, -60, 1000, False),
                 -_spread(rng, n, -60, 0, False), [-1.0, -0.5, 1e-300, 5e-324, 2.0 ** 53,
                                                   1.7976931348623157e308]]
    elif name == "tanh":
        parts = [np.linspace(-20.0, 20.0, n), _spread(rng, n, -60, 5, True),
                 rng.uniform(-1.0, 1.0, n), [0.55, 0.5499999999999999, 19.06, 20.0, 22.0, 1e300,
                                                           1e-300, 5e-324]]
    else:
        raise ValueError(name)
    return np.concatenate([np.asarray(p, dtype=np.float64) for p in parts])


def reference(name: str, x: np.ndarray) -> np.ndarray:
    import mpmath
    mpmath.mp.prec = 120
    fn = {"exp": mpmath.exp, "expm1": mpmath.expm1, "log": mpmath.log, "log1p": mpmath.log1p,
          "tanh": mpmath.tanh}[name]
    return [fn(mpmath.mpf(float(v))) for v in x]


def ulp_errors(got: np.ndarray, ref) -> np.ndarray:
    """|got - ref| in units of the last place of the double nearest ref (subnormal ulp
    2^-1074 below the normal range); inf where exactly one is infinite."""
    import mpmath
    out = np.empty(len(got))
    for i, (g, r) in enumerate(zip(got, ref)):
        rf = float(r) if abs(r) < mpmath.mpf(2) ** 1024 else math.copysign(math.inf, r)
        if math.isinf(rf) or math.isinf(g):
            out[i] = 0.0 if g == rf else math.inf
            continue
        ulp = math.ulp(rf) if rf != 0.0 else 5e-324
        out[i] = float(abs(mpmath.mpf(g) - r) / ulp)
    return out


def measure(n: int) -> list[tuple]:
    import pyad
    rows = []
    for name, loop in (("exp", exp_loop), ("expm1", expm1_loop), ("log", log_loop),
                       ("log1p", log1p_loop), ("tanh", tanh_loop)):
        x = inputs(name, n)
        ref = reference(name, x)
        mine = pyad.jit_grad(loop)(x)
        with np.errstate(all="ignore"):
            theirs = getattr(np, name)(x)
        rows.append((name, len(x), ulp_errors(mine, ref).max(), ulp_errors(theirs, ref).max()))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100_000, help="points per part of the sweep")
    ap.add_argument("--out", type=Path, help="also write the table to this markdown file")
    args = ap.parse_args(argv)
    lines = ["| function | inputs | pyad max error (ulp) | NumPy / glibc max error (ulp) |",
             "|---|---|---|---|"]
    for name, count, mine, theirs in measure(args.n):
        lines.append(f"| {name} | {count} | {mine:.3f} | {theirs:.3f} |")
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
